"""The sqlglot-free fast path of parse_where against the sqlglot path.

For every oracle condition (and generated variations of each: other spellings, NOT, extra
parentheses, flipped comparisons, quoted names, broken texts) the public ``parse_where``, which
tries the fast path first, must give exactly what the sqlglot path gives: the same predicate
(structure, indexes, types, literal values with their Python types and decimal scales) or the
same error message.
"""

from __future__ import annotations

import math
import random
import re
from decimal import Decimal
from typing import Any

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from paimon_lens.predicate import CompoundPredicate, LeafPredicate, Predicate
from paimon_lens.predicate import parser as parser_mod
from paimon_lens.predicate import sql_text as sql_mod
from paimon_lens.predicate.fast import SQLGLOT_KEYWORDS, parse_fast
from paimon_lens.predicate.parser import PredicateError, parse_where, quote_identifier
from paimon_lens.predicate.sqlglot_parser import PaimonLensDialect, parse_sqlglot, plain_identifier
from paimon_lens.types import DataField, field_from_json, parse_row_type
from tests.conftest import blob_cases, load_json, oracle_paths

EXPANSIONS: tuple[Any, ...] = (False, True, "0.9")


def canon_value(v: Any) -> Any:
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else v, math.copysign(1.0, v))
    if isinstance(v, Decimal):
        return ("decimal", str(v))
    return (type(v).__name__, v)


def canon(p: Predicate) -> Any:
    if isinstance(p, LeafPredicate):
        return (p.function, p.field, p.index, str(p.type), tuple(canon_value(v) for v in p.literals))
    assert isinstance(p, CompoundPredicate)
    return (p.function, tuple(canon(c) for c in p.children))


def reference(sql: str, fields: list[DataField], expansion: Any) -> Any:
    """What parse_where gave before the fast path: sqlglot only (predicate or error message)."""
    exp_kind = parser_mod._expansion(expansion)
    text = sql
    m = parser_mod._WHERE.match(text)
    if m:
        text = " " * m.end() + text[m.end():]
    try:
        pred = parse_sqlglot(sql, text, fields, None, exp_kind)
    except PredicateError as e:
        return ("error", str(e))
    except Exception as e:  # sqlglot's own failures on odd texts: the same ones either way
        return ("crash", type(e).__name__, str(e))
    return canon(pred if exp_kind != "leaf" else parser_mod._flatten(pred))


def actual(sql: str, fields: list[DataField], expansion: Any) -> Any:
    try:
        return canon(parse_where(sql, fields, paimon_in_expansion=expansion))
    except PredicateError as e:
        return ("error", str(e))
    except Exception as e:
        return ("crash", type(e).__name__, str(e))


def fast_handles(sql: str, fields: list[DataField]) -> bool:
    text = sql
    m = parser_mod._WHERE.match(text)
    if m:
        text = " " * m.end() + text[m.end():]
    return parse_fast(text, fields, "leaf") is not None


def _conditions() -> list[tuple[list[DataField], str]]:
    out: list[tuple[list[DataField], str]] = []
    for path in oracle_paths():
        data = load_json(path)
        fields = [field_from_json(f) for f in data["table"]["row_type"]]
        out += [(fields, p["sql"]) for p in data["predicates"]]
    for path in blob_cases():
        data = load_json(path)
        if "predicates" in data:
            fields = [field_from_json(f) for f in data["row_type"]]
            out += [(fields, p["sql"]) for p in data["predicates"]]
    return out


CONDITIONS = _conditions()
_KEYWORDS = re.compile(r"\b(AND|OR|NOT|IN|BETWEEN|IS|NULL|LIKE|TRUE|FALSE|DATE|TIMESTAMP|TIME)\b")
_CMP = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<>|!=|<=|>=|=|<|>)\s*(.+?)\s*$")
_FLIPPED = {"=": "=", "<>": "<>", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def variations(sql: str, fields: list[DataField], rng: random.Random) -> list[str]:
    """Spellings of ``sql`` that should parse the same (or fail the same way), and broken ones."""
    out = [
        sql,
        "WHERE " + sql,
        " where\n" + sql + " ",
        _KEYWORDS.sub(lambda m: m.group(1).lower(), sql),
        f"({sql})",
        f"(({sql}))",
        f"NOT ({sql})",
        f"NOT NOT ({sql})",
        f"{sql} AND {sql}",
        f"({sql}) OR ({sql})",
        f"{sql} OR NOT ({sql}) AND {sql}",
        sql + " --trailing comment",
        sql + ";",
        sql + " )",
        "(" + sql,
        sql.replace(" ", "  \t"),
        sql.replace("'", "''", 1),
        sql.replace("(", "", 1),
        sql.replace("=", "==", 1),
        sql.replace(" AND ", " AND AND ", 1),
        sql[: max(1, len(sql) // 2)],
    ]
    names = sorted({f.name for f in fields}, key=len, reverse=True)
    for name in names:
        if re.search(rf"\b{re.escape(name)}\b", sql):
            out.append(re.sub(rf"\b{re.escape(name)}\b", f"`{name}`", sql))
            out.append(re.sub(rf"\b{re.escape(name)}\b", f'"{name}"', sql))
            out.append(re.sub(rf"\b{re.escape(name)}\b", name.upper(), sql))
            out.append(re.sub(rf"\b{re.escape(name)}\b", name + "_x", sql))
            break
    m = _CMP.match(sql)
    if m and " AND " not in sql.upper() and " OR " not in sql.upper():
        out.append(f"{m.group(3)} {_FLIPPED[m.group(2)]} {m.group(1)}")
        out.append(f"{m.group(1)}{m.group(2)}{m.group(3)}")
        out.append(f"{m.group(1)} {m.group(2)} ({m.group(3)})")
        out.append(f"{m.group(1)} {m.group(2)} -{m.group(3)}")
        out.append(f"{m.group(1)} {m.group(2)} - {m.group(3)}")
        out.append(f"{m.group(1)} IN ({m.group(3)}, {m.group(3)})")
        out.append(f"{m.group(1)} NOT IN ({m.group(3)}, NULL)")
        out.append(f"{m.group(1)} BETWEEN {m.group(3)} AND {m.group(3)}")
        out.append(f"{m.group(1)} NOT BETWEEN {m.group(3)} AND {m.group(3)}")
        out.append(f"{m.group(1)} IS NOT NULL AND NOT {m.group(1)} IS NULL")
        out.append(f"{m.group(1)} {m.group(2)} NULL")
        out.append(f"{m.group(1)} LIKE {m.group(3)}")
        out.append(f"{m.group(1)} NOT LIKE {m.group(3)}")
        out.append(f"{m.group(1)} {m.group(2)} {m.group(1)}")
        out.append(f"{m.group(3)} {m.group(2)} {m.group(3)}")
    # a random splice of two tokens, to reach odd texts
    words = sql.split()
    if len(words) > 2:
        i, j = rng.randrange(len(words)), rng.randrange(len(words))
        words[i], words[j] = words[j], words[i]
        out.append(" ".join(words))
    return out


def test_oracle_conditions_are_mostly_on_the_fast_path() -> None:
    handled = sum(fast_handles(sql, fields) for fields, sql in CONDITIONS)
    assert len(CONDITIONS) > 2000
    assert handled / len(CONDITIONS) > 0.9, handled


@pytest.mark.parametrize("expansion", EXPANSIONS)
def test_oracle_conditions_match_sqlglot(expansion: Any) -> None:
    for fields, sql in CONDITIONS:
        assert actual(sql, fields, expansion) == reference(sql, fields, expansion), sql


def test_variations_match_sqlglot() -> None:
    rng = random.Random(20260101)
    seen: set[tuple[int, str]] = set()
    n = handled = 0
    for fields, sql in CONDITIONS:
        for text in variations(sql, fields, rng):
            key = (id(fields), text)
            if key in seen:
                continue
            seen.add(key)
            n += 1
            handled += fast_handles(text, fields)
            expansions = EXPANSIONS if n % 7 == 0 else (False,)
            for expansion in expansions:
                assert actual(text, fields, expansion) == reference(text, fields, expansion), text
    assert n > 20000 and handled > 5000, (n, handled)


F = [field_from_json(f) for f in [
    {"id": 0, "name": "id", "type": "BIGINT"}, {"id": 1, "name": "s", "type": "STRING"},
    {"id": 2, "name": "flag", "type": "BOOLEAN"}, {"id": 3, "name": "d", "type": "DATE"},
    {"id": 4, "name": "ts", "type": "TIMESTAMP(6)"}, {"id": 5, "name": "t", "type": "TIME"},
    {"id": 6, "name": "price", "type": "DECIMAL(10, 2)"}, {"id": 7, "name": "f", "type": "FLOAT"},
    {"id": 8, "name": "Mixed Case", "type": "INT"}, {"id": 9, "name": "date", "type": "INT"},
    {"id": 10, "name": "b", "type": "BYTES"}, {"id": 11, "name": "ltz", "type": "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
]]

EDGE_CASES = [
    "flag", "NOT flag", "flag AND id = 1", "s", "flag = TRUE", "flag IS TRUE", "flag IS NOT FALSE",
    "id = 007", "id = -0", "price = -0.00", "price = 1.005", "price = 1.50", "price = .5", "price = 5.",
    "price = 1e2", "f = 1.5", "f = -1.5e-3", "id = 99999999999999999999", "id = 9223372036854775807",
    "id = -9223372036854775808", "id = 1.0", "id = '12'", "id = ' 12'", "s = 12", "s = 'it''s'",
    "s = 'a\\b'", "s = 'naïve café'", "s = ''", "s LIKE 'ab%'", "s LIKE '%ab'", "s LIKE '%a%'",
    "s LIKE 'a_b'", "s LIKE 'a\\%'", "s NOT LIKE 'ab%'", "s NOT LIKE 'a_b'", "s LIKE 'a' ESCAPE '!'",
    "s ILIKE 'a'", "id LIKE 'a'", "s LIKE 1", "d = DATE '2024-02-29'", "d = date '2024-2-3'",
    "d = DATE '2023-02-29'", "d > '2024-01-01'", "d = TIMESTAMP '2024-01-01 10:00:00'",
    "ts >= TIMESTAMP '2024-01-01 10:00:00.123456789'", "ts = TIMESTAMP '2024-01-01T10:00:00Z'",
    "ltz = TIMESTAMP '2024-01-01 10:00:00Z'", "ts = '2024-01-01 10:00:00.1234567'", "t = TIME '10:11:12.5'",
    "t < TIME '25:00:00'", "t = TIMESTAMP '2024-01-01'", "`Mixed Case` = 1", '"Mixed Case" = 1',
    "mixed = 1", "`date` = 1", "date = 1", "DATE = 1", "id = 1 AND `date` > 2", "b = X'0a0b'",
    "b = 'ab'", "id IN (1, 2, 3)", "id NOT IN (1, NULL)", "id IN ()", "id IN (1, id)", "id IN (SELECT 1)",
    "id BETWEEN 1 AND 10", "id NOT BETWEEN 10 AND 1", "id BETWEEN SYMMETRIC 1 AND 2", "id BETWEEN s AND 2",
    "id IS NULL", "id IS NOT NULL", "NOT id IS NULL", "id IS NOT NOT NULL", "NULL IS NULL", "id = NULL",
    "id <=> 1", "id IS DISTINCT FROM 1", "id <> 1", "id != 1", "1 < id", "-1 < id", "id = - 1",
    "id = --1", "id = - -1", "id = -(1)", "id = (1)", "(id) = 1", "((id = 1))", "id = 1 = 1",
    "id = s", "1 = 1", "id + 1 = 2", "id = 1 OR s = 'a' AND flag", "NOT (id = 1 OR s = 'a')",
    "NOT s LIKE '%a%'", "NOT (s LIKE 'a_b' AND id = 1)", "id = 1;", "id = 1; id = 2", "", "   ",
    "WHERE", "WHERE id = 1", "where id = 1", "WHEREid = 1", "-- c\nid = 1", "id = 1 /* c */",
    "id = 'unterminated", "`id = 1", "t.id = 1", "id[1] = 2", "ABS(id) = 1", "CAST(id AS INT) = 1",
    "id = CAST('1' AS BIGINT)", "id = ?", "id = :x", "id = 1 x", "id = 1 AS x", "idx = 1", "Id = 1",
    "ID = 1 AND S = 'a'", "id\n=\n1\nAND\ns = 'x'", "id = 1 AND", "AND id = 1", "id = 1 OR OR s = 'a'",
    "id IN (1,)", "id IN 1", "id = 1 AND (s = 'a' OR (flag AND NOT d < DATE '2020-01-01'))",
    "f = 3.4028235E39", "f > 1.5", "price > 12345678901", "price = 99999999.995", "id < 1.5",
]


@pytest.mark.parametrize("sql", EDGE_CASES)
@pytest.mark.parametrize("expansion", EXPANSIONS)
def test_edge_cases_match_sqlglot(sql: str, expansion: Any) -> None:
    assert actual(sql, F, expansion) == reference(sql, F, expansion)


def test_benchmark_predicates_take_the_fast_path() -> None:
    fields = [field_from_json(f) for f in [
        {"id": 0, "name": "dt", "type": "STRING"}, {"id": 1, "name": "country", "type": "STRING"},
        {"id": 2, "name": "status", "type": "STRING"}, {"id": 3, "name": "score", "type": "INT"},
        {"id": 4, "name": "id", "type": "BIGINT"}]]
    for sql in ["dt >= '2025-01-05' AND dt <= '2025-01-12' AND country = 'DE' AND status = 'pending' "
                "AND score BETWEEN 300 AND 700", "country IN ('FR', 'JP') AND score > 900", "id = 1234567"]:
        assert fast_handles(sql, fields)
        assert actual(sql, fields, False) == reference(sql, fields, False)


def test_keyword_list_covers_sqlglot() -> None:
    """Every single-word sqlglot keyword is in the fast path's list (it must decline them as names)."""
    words = {k.upper() for k in PaimonLensDialect.Tokenizer.KEYWORDS if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)}
    assert words <= SQLGLOT_KEYWORDS, sorted(words - SQLGLOT_KEYWORDS)
    no_paren = {k.upper() for k in sqlglot.parser.Parser.NO_PAREN_FUNCTION_PARSERS}
    assert no_paren <= SQLGLOT_KEYWORDS, sorted(no_paren - SQLGLOT_KEYWORDS)


def _identifier_candidates() -> list[str]:
    names: set[str] = set()
    for fields, _ in CONDITIONS[::10]:
        names.update(f.name for f in fields)
    for cls in exp.ALL_FUNCTIONS:
        for name in cls.sql_names():
            names.add(name)
            names.add(name.lower())
    names.update(sqlglot.parser.Parser.FUNCTIONS)
    names.update(k for k in PaimonLensDialect.Tokenizer.KEYWORDS if " " not in k)
    names.update(["_", "_1", "a1", "x_y", "values", "status", "year", "month", "day", "hour", "minute", "second",
                  "key", "value", "name", "type", "count", "sum", "min", "max", "level", "bucket", "index"])
    return sorted(n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n))


def test_plain_identifier_fast_decision_matches_sqlglot() -> None:
    sql_mod._plain_identifier.cache_clear()
    for name in _identifier_candidates():
        assert sql_mod._plain_identifier(name) == plain_identifier(name), name
        assert quote_identifier(name) in (name, f"`{name}`")


def test_column_names_like_sql_words_match_sqlglot() -> None:
    """Columns named like sqlglot keywords, functions or types, bare and quoted."""
    for name in _identifier_candidates():
        fields = [field_from_json({"id": 0, "name": name, "type": "INT"}),
                  field_from_json({"id": 1, "name": "other", "type": "BOOLEAN"})]
        for sql in (f"{name} = 1", f"{name} IS NULL", f"1 < {name}", f"other AND {name} IN (1, 2)",
                    f"NOT {name} BETWEEN 1 AND 2", f"`{name}` = 1", f"{name}(1) = 1", f"{name} = {name}"):
            assert actual(sql, fields, False) == reference(sql, fields, False), sql


def test_parse_where_does_not_import_sqlglot_on_the_fast_path() -> None:
    import subprocess
    import sys

    code = ("import sys\n"
            "from paimon_lens.predicate.parser import parse_where, to_sql\n"
            "from paimon_lens.types import field_from_json\n"
            "f = [field_from_json({'id': 0, 'name': 'x', 'type': 'INT'})]\n"
            "print(to_sql(parse_where(\"x BETWEEN 1 AND 5 OR x IN (7, 8) AND NOT x IS NULL\", f)))\n"
            "print('sqlglot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[1] == "False", out


# ---- long IN lists: read in bulk, the same answer as sqlglot ------------------------------------

_LIST_FIELDS = list(parse_row_type("i INT, b BIGINT, s STRING, d DOUBLE, dt DATE, c DECIMAL(10, 2)"))
_INT_TEXT = st.one_of(st.integers(-(2**40), 2**40).map(str), st.integers(0, 999).map(lambda v: f"00{v}"))
_STR_TEXT = st.text(st.sampled_from("ab',)( \\-é\n1"), max_size=6).map(lambda v: "'" + v.replace("'", "''") + "'")
_SEP = st.sampled_from([",", ", ", " ,", "\n,\t", ",  "])


@settings(max_examples=150, deadline=None)
@given(column=st.sampled_from(["i", "b", "s", "d", "dt", "c"]), ints=st.booleans(),
       items=st.lists(st.one_of(_INT_TEXT, _STR_TEXT), min_size=14, max_size=40), data=st.data(),
       negate=st.booleans())
def test_long_in_lists_parse_as_sqlglot_parses_them(column: str, ints: bool, items: list[str], data: Any,
                                                    negate: bool) -> None:
    """Lists of 16+ plain integers or strings take the bulk path: same predicate or error as sqlglot,
    for every column type (casts, range errors) and odd spacing; mixed lists fall back token by token."""
    if data.draw(st.booleans()):  # a pure list most of the time: the bulk path
        items = [data.draw(_INT_TEXT if ints else _STR_TEXT) for _ in items]
    text = "".join(item + (data.draw(_SEP) if k < len(items) - 1 else "") for k, item in enumerate(items))
    sql = f"{column} {'NOT IN' if negate else 'IN'} ({text})"
    assert actual(sql, _LIST_FIELDS, False) == reference(sql, _LIST_FIELDS, False), sql


def test_bulk_list_is_taken_for_long_plain_lists() -> None:
    from paimon_lens.predicate import fast

    tokens = fast._tokens("b IN (" + ", ".join(str(i - 5) for i in range(20)) + ") AND s IN ('a', 'b')")
    assert tokens is not None
    kinds = [k for k, _ in tokens]
    assert kinds.count(fast._LIST) == 1 and kinds.count(fast._LIT) == 2
