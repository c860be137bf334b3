"""parse_where: Paimon-written oracle trees, literal casts, errors, and a print/parse round trip."""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_lens.predicate import CompoundPredicate, LeafPredicate, Predicate, and_, or_
from paimon_lens.predicate.parser import PredicateError, parse_where, quote_identifier, to_sql
from paimon_lens.types import DataField, Timestamp, field_from_json, parse_row_type, parse_type
from paimon_lens.values import float32, from_json
from tests.conftest import FIXTURES, blob_cases, load_json, oracle_paths

# ---- helpers ---------------------------------------------------------------------------------


def canon_value(v: Any) -> Any:
    """A comparable form that tells -0.0 from 0.0 and 1.50 from 1.5 (Paimon Decimal keeps scale)."""
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else v, math.copysign(1.0, v))
    if isinstance(v, Decimal):
        return ("decimal", str(v))
    if isinstance(v, bool):
        return ("bool", v)
    return (type(v).__name__, v)


def canon(p: Predicate) -> Any:
    """Exact structure: function, field, index, type and literal values."""
    if isinstance(p, LeafPredicate):
        return (p.function, p.field, p.index, str(p.type), tuple(canon_value(v) for v in p.literals))
    return (p.function, tuple(canon(c) for c in p.children))


def flat(p: Predicate) -> Predicate:
    if isinstance(p, LeafPredicate):
        return p
    kids = [flat(c) for c in p.children]
    return and_(*kids) if p.function == "And" else or_(*kids)


def from_oracle(node: dict[str, Any]) -> Predicate:
    """An oracle ``tree`` (Paimon's own structure) as a model predicate."""
    if node["op"] in ("And", "Or"):
        return CompoundPredicate(node["op"], tuple(from_oracle(c) for c in node["children"]))
    t = parse_type(node["type"])
    return LeafPredicate(node["op"], node["field"], node["field_index"], t,
                         tuple(from_json(v, t) for v in node["literals"]))


def strip_comment(sql: str) -> str:
    return re.sub(r"\s*--[^']*$", "", sql)


def has_in_leaf(node: dict[str, Any]) -> bool:
    if node["op"] in ("In", "NotIn"):
        return True
    return any(has_in_leaf(c) for c in node.get("children", []))


def oracle_cases() -> list[Any]:
    cases = []
    for path in oracle_paths():
        data = load_json(path)
        fields = [field_from_json(f) for f in data["table"]["row_type"]]
        version = "0.9" if str(data["paimon_version"]).startswith("0.9") else "2.0"
        for p in data["predicates"]:
            ident = f"{path.parent.name}/{path.stem}/{p['id']}"
            cases.append(pytest.param(fields, version, p, id=ident))
    for path in blob_cases():
        data = load_json(path)
        if "predicates" not in data:
            continue
        fields = [field_from_json(f) for f in data["row_type"]]
        for p in data["predicates"]:
            ident = f"{path.parent.relative_to(FIXTURES).as_posix()}/{p['id']}"
            cases.append(pytest.param(fields, "2.0", p, id=ident))
    return cases


ORACLE_CASES = oracle_cases()


def test_fixture_inventory() -> None:
    # every table oracle and every blob case with predicates is exercised
    assert len(oracle_paths()) >= 12
    assert len(ORACLE_CASES) > 2000


def expanded_in(sql: str, tree: dict[str, Any]) -> bool:
    """The oracle was built with PredicateBuilder.in/notIn (Or of Equal / And of NotEqual)."""
    return re.search(r"\bIN\s*\(", strip_comment(sql), re.I) is not None and not has_in_leaf(tree)


@pytest.mark.parametrize(("fields", "version", "case"), ORACLE_CASES)
def test_oracle_tree_exact(fields: list[DataField], version: str, case: dict[str, Any]) -> None:
    """With ``paimon_in_expansion`` the tree equals Paimon's, nesting of IN and AND/OR included."""
    sql, tree = strip_comment(case["sql"]), case["tree"]
    expected = from_oracle(tree)
    if has_in_leaf(tree):  # the oracle built In/NotIn leaves directly: that is our default
        got = parse_where(sql, fields)
        expected = flat(expected)
    else:
        got = parse_where(sql, fields, paimon_in_expansion="0.9" if version == "0.9" else "2.0")
    assert canon(got) == canon(expected), f"{case['sql']}\n ours:   {got}\n paimon: {case['java']}"


@pytest.mark.parametrize(("fields", "version", "case"), ORACLE_CASES)
def test_oracle_tree_default(fields: list[DataField], version: str, case: dict[str, Any]) -> None:
    """Default parse (n-ary AND/OR, one In/NotIn leaf per list) against the flattened oracle."""
    sql, tree = case["sql"], case["tree"]
    got = parse_where(sql, fields)  # trailing '-- comment' is fine for the parser itself
    expected = flat(from_oracle(tree))
    if expanded_in(sql, tree):
        # the oracle's Or-of-Equal / And-of-NotEqual over one column is our single In / NotIn leaf
        assert isinstance(got, LeafPredicate) and got.function in ("In", "NotIn")
        op = "Or" if got.function == "In" else "And"
        kids = expected.children if isinstance(expected, CompoundPredicate) else (expected,)
        assert isinstance(expected, LeafPredicate) or expected.function == op
        assert all(isinstance(k, LeafPredicate) and k.field == got.field for k in kids)
        assert [canon_value(v) for v in got.literals] == [canon_value(k.literals[0]) for k in kids
                                                          if isinstance(k, LeafPredicate)]
    else:
        assert canon(got) == canon(expected), f"{sql}\n ours:   {got}\n paimon: {case['java']}"


# ---- a small schema for the unit tests ---------------------------------------------------------

FIELDS = parse_row_type(
    "id BIGINT NOT NULL, user_id INT, country STRING, status VARCHAR(10), score INT, amount DOUBLE, "
    "price DECIMAL(10, 2), ts TIMESTAMP(3), ts6 TIMESTAMP(6), ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, "
    "flag BOOLEAN, tiny TINYINT, small SMALLINT, f FLOAT, bin BYTES, d DATE, t TIME, c CHAR(3), "
    "`My Col` INT, `Score2` INT, `score2` INT, attrs MAP<STRING, STRING>, `select` INT"
)


def leaf(sql: str, **kw: Any) -> LeafPredicate:
    p = parse_where(sql, FIELDS, **kw)
    assert isinstance(p, LeafPredicate), p
    return p


def test_comparisons_and_flip() -> None:
    assert leaf("id = 1004") == LeafPredicate("Equal", "id", 0, FIELDS[0].type, (1004,))
    for sql, fn in [("score <> 1", "NotEqual"), ("score != 1", "NotEqual"), ("score < 1", "LessThan"),
                    ("score <= 1", "LessOrEqual"), ("score > 1", "GreaterThan"), ("score >= 1", "GreaterOrEqual")]:
        assert leaf(sql).function == fn
    for sql, fn in [("5 < score", "GreaterThan"), ("5 <= score", "GreaterOrEqual"), ("5 > score", "LessThan"),
                    ("5 >= score", "LessOrEqual"), ("5 = score", "Equal"), ("5 <> score", "NotEqual")]:
        p = leaf(sql)
        assert (p.function, p.field, p.literals) == (fn, "score", (5,))


def test_leaf_index_and_type_come_from_schema() -> None:
    p = leaf("price > 1")
    assert (p.field, p.index, str(p.type)) == ("price", 6, "DECIMAL(10, 2)")


def test_in_default_and_expansions() -> None:
    assert leaf("user_id IN (101, 133, 170)").literals == (101, 133, 170)
    assert leaf("user_id NOT IN (1, 2)").function == "NotIn"
    p20 = parse_where("user_id IN (1, 2, 3)", FIELDS, paimon_in_expansion=True)
    assert str(p20) == "Or([Equal(user_id, 1), Or([Equal(user_id, 2), Equal(user_id, 3)])])"
    p09 = parse_where("user_id IN (1, 2, 3)", FIELDS, paimon_in_expansion="0.9")
    assert str(p09) == "Or([Or([Equal(user_id, 1), Equal(user_id, 2)]), Equal(user_id, 3)])"
    n09 = parse_where("user_id NOT IN (1, 2, 3)", FIELDS, paimon_in_expansion="0.9")
    assert str(n09) == "And([And([NotEqual(user_id, 1), NotEqual(user_id, 2)]), NotEqual(user_id, 3)])"
    five = parse_where("user_id IN (1, 2, 3, 4, 5)", FIELDS, paimon_in_expansion="2.0")
    assert str(five) == ("Or([Or([Equal(user_id, 1), Equal(user_id, 2)]), "
                         "Or([Equal(user_id, 3), Or([Equal(user_id, 4), Equal(user_id, 5)])])])")
    one = parse_where("user_id IN (7)", FIELDS, paimon_in_expansion=True)
    assert one == LeafPredicate("Equal", "user_id", 1, FIELDS[1].type, (7,))
    many = ", ".join(str(i) for i in range(21))
    big = parse_where(f"user_id NOT IN ({many})", FIELDS, paimon_in_expansion=True)
    assert isinstance(big, LeafPredicate) and big.function == "NotIn" and len(big.literals) == 21
    twenty = parse_where(f"user_id IN ({', '.join(str(i) for i in range(20))})", FIELDS, paimon_in_expansion=True)
    assert isinstance(twenty, CompoundPredicate)
    with pytest.raises(ValueError):
        parse_where("user_id IN (1)", FIELDS, paimon_in_expansion="1.0")  # type: ignore[arg-type]


def test_expansion_keeps_in_nested_inside_or() -> None:
    p = parse_where("score = 1 OR user_id IN (1, 2, 3)", FIELDS, paimon_in_expansion=True)
    assert str(p) == ("Or([Equal(score, 1), Or([Equal(user_id, 1), "
                      "Or([Equal(user_id, 2), Equal(user_id, 3)])])])")
    # the default flattens everything
    d = parse_where("score = 1 OR (user_id = 1 OR user_id = 2)", FIELDS)
    assert isinstance(d, CompoundPredicate) and len(d.children) == 3


def test_null_literals() -> None:
    assert leaf("id = NULL").literals == (None,)
    assert leaf("NULL = id").literals == (None,)
    assert leaf("user_id IN (1, NULL)").literals == (1, None)
    assert str(parse_where("user_id IN (1, NULL)", FIELDS, paimon_in_expansion=True)) == \
        "Or([Equal(user_id, 1), Equal(user_id, NULL)])"  # literals as SQL
    assert leaf("score BETWEEN NULL AND 5").literals == (None, 5)
    assert leaf("status IS NULL").function == "IsNull"
    assert leaf("status IS NOT NULL").function == "IsNotNull"
    assert leaf("id <=> NULL").function == "IsNull"
    assert str(parse_where("id <=> 5", FIELDS)) == "And([IsNotNull(id), Equal(id, 5)])"
    assert str(parse_where("id IS DISTINCT FROM 5", FIELDS)) == "Or([IsNull(id), NotEqual(id, 5)])"


def test_between_and_not_between() -> None:
    assert leaf("score BETWEEN 40 AND 45") == LeafPredicate("Between", "score", 4, FIELDS[4].type, (40, 45))
    assert str(parse_where("score NOT BETWEEN 40 AND 45", FIELDS)) == \
        "Or([LessThan(score, 40), GreaterThan(score, 45)])"
    assert leaf("d BETWEEN DATE '1969-12-31' AND '1970-01-02'").literals == (-1, 1)


def test_like_follows_paimon_like_optimization() -> None:
    assert (leaf("country LIKE 'Z%'").function, leaf("country LIKE 'Z%'").literals) == ("StartsWith", ("Z",))
    assert (leaf("status LIKE '%tive'").function, leaf("status LIKE '%tive'").literals) == ("EndsWith", ("tive",))
    assert (leaf("status LIKE '%ct%'").function, leaf("status LIKE '%ct%'").literals) == ("Contains", ("ct",))
    assert (leaf("status LIKE 'active'").function, leaf("status LIKE 'active'").literals) == ("Equal", ("active",))
    for pattern in ("a_c%", "a%b%", "%", "%%", "a%b", "_"):
        p = leaf(f"status LIKE '{pattern}'")
        assert (p.function, p.literals) == ("Like", (pattern,)), pattern
    # escapes are kept as a Like leaf in Paimon's '\' convention, never optimised
    assert leaf("status LIKE 'a\\%%'").literals == ("a\\%%",) and leaf("status LIKE 'a\\%%'").function == "Like"
    p = leaf("status LIKE 'a!%%' ESCAPE '!'")
    assert (p.function, p.literals) == ("Like", ("a\\%%",))
    p = leaf("status LIKE 'a\\b%' ESCAPE '!'")
    assert (p.function, p.literals) == ("StartsWith", ("a\\b",))
    assert leaf("status NOT LIKE 'abc'").function == "NotEqual"


def test_not_pushdown() -> None:
    assert str(parse_where("NOT (score = 1 AND country = 'x')", FIELDS)) == \
        "Or([NotEqual(score, 1), NotEqual(country, 'x')])"
    assert str(parse_where("NOT (score < 1 OR status IS NULL)", FIELDS)) == \
        "And([GreaterOrEqual(score, 1), IsNotNull(status)])"
    assert leaf("NOT NOT score = 1").function == "Equal"
    assert leaf("NOT score IN (1, 2)").function == "NotIn"
    assert leaf("NOT (score NOT IN (1, 2))").function == "In"
    # NOT BETWEEN inside NOT(OR) stays flat
    p = parse_where("NOT (score BETWEEN 1 AND 2 AND id = 3)", FIELDS)
    assert str(p) == "Or([LessThan(score, 1), GreaterThan(score, 2), NotEqual(id, 3)])"


def test_boolean_forms() -> None:
    assert leaf("flag").literals == (True,)
    assert leaf("NOT flag").function == "NotEqual"
    assert leaf("flag IS FALSE").literals == (False,)
    assert str(parse_where("flag IS NOT TRUE", FIELDS)) == "Or([IsNull(flag), NotEqual(flag, TRUE)])"
    assert leaf("flag = 'yes'").literals == (True,)
    assert leaf("flag = TRUE").literals == (True,)


def test_numeric_casts() -> None:
    assert leaf("amount = 5").literals == (5.0,) and isinstance(leaf("amount = 5").literals[0], float)
    assert leaf("amount > 1.0E-300").literals == (1e-300,)
    neg_zero = leaf("amount = -0.0").literals[0]
    assert neg_zero == 0.0 and math.copysign(1.0, neg_zero) < 0
    assert leaf("f = 0.1").literals == (float32(0.1),)
    assert leaf("f = 16777217").literals == (16777216.0,)
    assert leaf("price = 1.255").literals == (Decimal("1.26"),)
    assert leaf("price = -1.255").literals == (Decimal("-1.26"),)
    assert str(leaf("price = 3").literals[0]) == "3.00"
    assert str(leaf("price = 1e2").literals[0]) == "100.00"
    assert leaf("tiny = -128").literals == (-128,)
    assert leaf("id = -9223372036854775808").literals == (-(2**63),)
    assert leaf("score = '42'").literals == (42,)
    assert leaf("amount = 'NaN'").literals[0] != leaf("amount = 'NaN'").literals[0]
    assert leaf("amount = '-Infinity'").literals == (-math.inf,)
    assert leaf("price = '12.345'").literals == (Decimal("12.35"),)
    assert leaf("score > +7").literals == (7,)
    assert leaf("score > -(-7)").literals == (7,)


def test_string_and_binary_literals() -> None:
    assert leaf("country = 'it''s naïve 東京'").literals == ("it's naïve 東京",)
    assert leaf("country = ''").literals == ("",)
    assert leaf("bin = X''").literals == (b"",)
    assert leaf("bin = X'0a0B'").literals == (b"\x0a\x0b",)
    assert leaf("bin = x'ff'").literals == (b"\xff",)
    assert leaf("bin = 'é'").literals == ("é".encode(),)
    assert leaf("c = 'Ü'").literals == ("Ü",)


def test_temporal_literals() -> None:
    assert leaf("d = DATE '1967-06-17'").literals == (-929,)
    assert leaf("d < '2022-01-28'").literals == (19020,)
    assert leaf("t = TIME '10:00:01.5'").literals == (36_001_500,)
    assert leaf("t = '00:00:01'").literals == (1000,)
    ts = leaf("ts >= TIMESTAMP '2024-01-03 00:00:00.000'").literals[0]
    assert ts == Timestamp(1704240000000, 0)
    # a typed literal keeps its digits; a string is cast like Paimon (fraction floored to p)
    assert leaf("ts = TIMESTAMP '2020-01-01 00:00:00.123456'").literals[0].nano_of_millisecond == 456_000
    assert leaf("ts = '2020-01-01 00:00:00.123456'").literals[0].nano_of_millisecond == 0
    assert leaf("ts6 = '2020-01-01 00:00:00.123456789'").literals[0] == \
        Timestamp.from_datetime(dt.datetime(2020, 1, 1, 0, 0, 0, 123456))
    assert leaf("ts = DATE '2020-01-02'").literals == (Timestamp(1577923200000, 0),)
    ltz = leaf("ltz = TIMESTAMP_LTZ '2022-05-10 19:20:00.562886'").literals[0]
    assert ltz == from_json("2022-05-10T19:20:00.562886Z", FIELDS[9].type)
    assert leaf("ltz = TIMESTAMP WITH LOCAL TIME ZONE '2022-05-10 19:20:00.562886'").literals == (ltz,)
    assert leaf("ltz = '2022-05-10 19:20:00.562886Z'").literals == (ltz,)
    assert leaf("ts = TIMESTAMP '1969-12-31 23:59:59.999'").literals == (Timestamp(-1, 0),)
    assert leaf("ts6 = CAST('2020-01-01 10:00:00' AS TIMESTAMP)").literals == \
        (Timestamp.from_datetime(dt.datetime(2020, 1, 1, 10)),)


def test_identifiers() -> None:
    assert leaf("`My Col` = 1").field == "My Col"
    assert leaf('"My Col" = 1').field == "My Col"
    assert leaf("`my col` = 1").field == "My Col"  # unique case-insensitive match
    assert leaf("COUNTRY = 'x'").field == "country"
    assert leaf("Score2 = 1").field == "Score2"  # exact match wins over the other spelling
    assert leaf("score2 = 1").field == "score2"
    assert leaf("`select` = 1").field == "select"
    assert quote_identifier("select") == "`select`" and quote_identifier("score") == "score"


def test_where_prefix_comments_and_parens() -> None:
    assert leaf("WHERE id = 1 -- trailing comment").literals == (1,)
    assert leaf("/* c */ (((id = 1)))").literals == (1,)
    p = parse_where("id = 1 AND (score = 2 OR score = 3) AND status IS NULL", FIELDS)
    assert str(p) == "And([Equal(id, 1), Or([Equal(score, 2), Equal(score, 3)]), IsNull(status)])"


def test_spark_dialect() -> None:
    p = parse_where("country = 'it\\'s' AND bin = X'0a' AND id = 12L AND price = 1.5BD AND `My Col` = 1",
                    FIELDS, dialect="spark")
    assert str(p) == ("And([Equal(country, 'it''s'), Equal(bin, X'0a'), Equal(id, 12), "
                      "Equal(price, 1.50), Equal(My Col, 1)])")  # literals as SQL
    assert [lf.literals for lf in p.children] == [("it's",), (b"\n",), (12,), (Decimal("1.50"),), (1,)]
    assert leaf("ts = TIMESTAMP '2024-01-03 00:00:00'", dialect="spark").literals == (Timestamp(1704240000000, 0),)


# ---- errors ------------------------------------------------------------------------------------


def error(sql: str, **kw: Any) -> PredicateError:
    with pytest.raises(PredicateError) as info:
        parse_where(sql, FIELDS, **kw)
    return info.value


def test_unknown_column_suggests() -> None:
    e = error("contry = 'DE'")
    assert "unknown column 'contry'" in str(e) and "did you mean 'country'" in str(e)
    assert (e.fragment, e.line, e.column, e.start) == ("contry", 1, 1, 0)
    e = error("id = 1 AND\n  zzzzzz = 2")
    assert "columns are: id, user_id" in str(e) and (e.line, e.column) == (2, 3)
    e = error("SCORE2 = 1")
    assert "ambiguous" in str(e) and "'Score2', 'score2'" in str(e)
    e = error("t.id = 1")
    assert "qualified column names" in str(e) and e.fragment == "t.id"


def test_impossible_literal_casts() -> None:
    e = error("score = 'abc'")
    assert "'abc'" in str(e) and "column 'score' (INT)" in str(e) and "not an integer" in str(e)
    assert e.fragment == "'abc'" and e.column == 9
    e = error("tiny = 300")
    assert "out of range for TINYINT (-128..127)" in str(e) and e.fragment == "300"
    e = error("tiny < -129")
    assert "out of range" in str(e) and e.fragment == "-129"
    e = error("small = 40000")
    assert "SMALLINT" in str(e)
    e = error("score = 1.5")
    assert "not an integer" in str(e)
    e = error("price = 123456789.123")
    assert "DECIMAL(10, 2) holds 10" in str(e)
    e = error("f = 1e300")
    assert "out of range for FLOAT" in str(e)
    e = error("amount = 1e400")
    assert "out of range for DOUBLE" in str(e)
    e = error("country = 5")
    assert "not a string" in str(e) and "quote it: '5'" in str(e)
    e = error("d = DATE '2020-13-01'")
    assert "not a valid date" in str(e) and e.fragment == "DATE '2020-13-01'"
    e = error("d = 'yesterday'")
    assert "is not a date" in str(e)
    e = error("ts = TIMESTAMP 'noon'")
    assert "not a timestamp" in str(e) and e.fragment == "TIMESTAMP 'noon'"
    e = error("flag = 3")
    assert "not a boolean" in str(e)
    e = error("bin = 5")
    assert "X'0a0b'" in str(e)
    e = error("bin = X'abc'")
    assert "even number of hex digits" in str(e)
    e = error("attrs = 'x'")
    assert "MAP<STRING, STRING>" in str(e) and "IS NULL" in str(e)
    e = error("user_id IN (1, 'two', 3)")
    assert e.fragment == "'two'" and e.column == 16
    e = error("ts = 'abc'")
    assert "not a timestamp" in str(e)


def test_unsupported_constructs() -> None:
    cases = {
        "f(id) = 1": ("functions are not supported", "f(id)"),
        "id = abs(-1)": ("functions are not supported", "abs(-1)"),
        "id = (SELECT 1)": ("subqueries are not supported", "SELECT 1"),
        "id IN (SELECT x FROM t)": ("subqueries are not supported", "id IN (SELECT x FROM t)"),
        "id = user_id": ("comparisons between two columns", "id = user_id"),
        "score BETWEEN 1 AND user_id": ("comparisons between two columns", "score BETWEEN 1 AND user_id"),
        "score IN (1, user_id)": ("IN lists of columns", "user_id"),
        "score = 1 + 2": ("operators other than comparisons", "1 + 2"),
        "attrs['a'] = 'x'": ("nested field / map / array access", "attrs['a']"),
        "id = ?": ("query parameters", "?"),
        "CAST(id AS STRING) = '1'": ("CAST of a column", "id"),
        "country ILIKE 'x%'": ("ILike is not supported", "country ILIKE 'x%'"),
        "1 = 1": ("a comparison without a column", "1 = 1"),
        "TRUE": ("a condition without a column", "TRUE"),
        "score": ("used as a condition", "score"),
        "score BETWEEN SYMMETRIC 1 AND 2": ("BETWEEN SYMMETRIC", "score BETWEEN SYMMETRIC 1 AND 2"),
        "price LIKE '1%'": ("LIKE needs a CHAR/VARCHAR/STRING column", "price LIKE '1%'"),
        "status LIKE 'a\\x'": ("invalid escape sequence", "status LIKE 'a\\x'"),
    }
    for sql, (msg, fragment) in cases.items():
        e = error(sql)
        assert msg in str(e), (sql, str(e))
        assert fragment in e.fragment, (sql, e.fragment)


def test_not_that_cannot_be_negated() -> None:
    e = error("NOT country LIKE 'Z%'")
    assert "Paimon has no negation of StartsWith(country" in str(e)
    assert e.fragment == "NOT country LIKE 'Z%'"
    e = error("country NOT LIKE '%x%'")
    assert "no negation of Contains" in str(e)
    e = error("score = 1 AND NOT (status LIKE 'a_' OR id = 1)")
    assert "no negation of Like(status" in str(e) and e.fragment == "NOT (status LIKE 'a_' OR id = 1)"
    e = error("NOT (flag IS TRUE AND id = 1)")
    assert "IS TRUE" in str(e)


def test_malformed_sql() -> None:
    e = error("score = ")
    assert str(e).startswith("malformed SQL (expected a value after =)") and e.fragment == "=" and e.column == 7
    e = error("score = 1 AND")
    assert "malformed SQL (expected a condition after AND)" in str(e) and e.fragment == "AND"
    e = error("(score = 1")
    assert "expected ')': a parenthesis is not closed" in str(e)
    e = error("score = 1)")
    assert "malformed SQL (unexpected ')')" in str(e) and e.fragment == ")" and e.column == 10
    e = error("country = 'abc")
    assert "unterminated" in str(e) and e.fragment.startswith("'abc") and e.column == 11
    e = error("score = 1 b")
    assert "unexpected text" in str(e) and e.fragment == "b"
    e = error("score = 1; id = 2")
    assert "single expression" in str(e) and e.fragment == "id = 2"
    assert "empty WHERE condition" in str(error(""))
    assert "empty WHERE condition" in str(error("   -- nothing"))
    e = error("score = 1", dialect="no-such-dialect")
    assert "unknown SQL dialect" in str(e)


@pytest.mark.parametrize(("where", "words"), [
    ("score >< 3", "expected a value after >"),
    ("= 3", "expected a column before ="),
    ("score BETWEEN 1", "BETWEEN needs a lower and an upper bound"),
    ("country LIKE", "expected a value after LIKE"),
    ("score = 1 OR OR id = 2", "expected a condition after OR"),
    ("NOT", "expected a condition after NOT"),
    ("id 1", "unexpected '1'"),
    ("id IN (1,", "a parenthesis is not closed"),
])
def test_malformed_sql_in_users_words(where: str, words: str) -> None:
    """Errors say what is wrong in the WHERE clause's terms, never the parser library's internals."""
    text = str(error(where))
    assert words in text, text
    for internal in ("Required keyword", "missing for", "Invalid expression", "Expecting"):
        assert internal not in text, text


def test_error_is_a_paimon_lens_error() -> None:
    from paimon_lens.errors import PaimonLensError

    assert issubclass(PredicateError, PaimonLensError)


# ---- print / parse round trip (Hypothesis) -----------------------------------------------------

RT_FIELDS = parse_row_type(
    "b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT NOT NULL, f FLOAT, d DOUBLE, "
    "dec DECIMAL(10, 2), dec38 DECIMAL(38, 10), s STRING, c CHAR(5), vc VARCHAR(20), bin BYTES, "
    "dt DATE, tm TIME(3), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), "
    "ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, `odd name` INT, `select` STRING, `Mixed``Case` STRING, "
    "m MAP<STRING, INT>"
)

_MIN_DAY = (dt.date(1, 1, 1) - dt.date(1970, 1, 1)).days
_MAX_DAY = (dt.date(9999, 12, 31) - dt.date(1970, 1, 1)).days


def value_strategy(f: DataField) -> st.SearchStrategy[Any]:
    t = f.type
    r = t.root
    if r == "BOOLEAN":
        return st.booleans()
    if t.is_integral:
        bits = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}[r]
        return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if r == "FLOAT":
        return st.floats(width=32, allow_nan=False)
    if r == "DOUBLE":
        return st.floats(allow_nan=False)
    if r == "DECIMAL":
        p, s = t.precision or 10, t.scale or 0
        return st.integers(-(10**p) + 1, 10**p - 1).map(lambda u: Decimal(f"{u}E-{s}"))
    if t.is_string:
        return st.text(max_size=8)
    if t.is_binary:
        return st.binary(max_size=6)
    if r == "DATE":
        return st.integers(_MIN_DAY, _MAX_DAY)
    if r == "TIME":
        return st.integers(0, 86_399_999)
    if t.is_timestamp:
        return st.builds(Timestamp, st.integers(_MIN_DAY * 86_400_000, (_MAX_DAY + 1) * 86_400_000 - 1),
                         st.integers(0, 999_999))
    raise AssertionError(r)


SCALAR_FIELDS = [(i, f) for i, f in enumerate(RT_FIELDS) if not f.type.is_nested]
_SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="%_\\"), min_size=1, max_size=6)


@st.composite
def leaf_strategy(draw: st.DrawFn) -> LeafPredicate:
    i, f = draw(st.sampled_from([*SCALAR_FIELDS, (len(RT_FIELDS) - 1, RT_FIELDS[-1])]))
    if f.type.is_nested:
        return LeafPredicate(draw(st.sampled_from(["IsNull", "IsNotNull"])), f.name, i, f.type)
    values = value_strategy(f)
    nullable = st.none() | values
    kinds = ["cmp", "null", "in", "between"] + (["str"] if f.type.is_string else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "cmp":
        fn = draw(st.sampled_from(["Equal", "NotEqual", "LessThan", "LessOrEqual", "GreaterThan", "GreaterOrEqual"]))
        return LeafPredicate(fn, f.name, i, f.type, (draw(nullable),))
    if kind == "null":
        return LeafPredicate(draw(st.sampled_from(["IsNull", "IsNotNull"])), f.name, i, f.type)
    if kind == "in":
        fn = draw(st.sampled_from(["In", "NotIn"]))
        return LeafPredicate(fn, f.name, i, f.type, tuple(draw(st.lists(nullable, max_size=25))))
    if kind == "between":
        return LeafPredicate("Between", f.name, i, f.type, (draw(nullable), draw(nullable)))
    fn = draw(st.sampled_from(["StartsWith", "EndsWith", "Contains", "Like"]))
    if fn == "Like":
        pattern = draw(st.text(st.characters(codec="utf-8", exclude_characters="\\"), max_size=4))
        return LeafPredicate("Like", f.name, i, f.type, (pattern + "_" + draw(st.sampled_from(["", "%"])),))
    return LeafPredicate(fn, f.name, i, f.type, (draw(_SAFE_TEXT),))


def tree_strategy() -> st.SearchStrategy[Predicate]:
    def extend(children: st.SearchStrategy[Predicate]) -> st.SearchStrategy[Predicate]:
        return st.lists(children, min_size=2, max_size=4).flatmap(
            lambda kids: st.sampled_from([and_(*kids), or_(*kids)]))

    return st.recursive(leaf_strategy(), extend, max_leaves=8)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_strategy())
def test_round_trip_print_parse(tree: Predicate) -> None:
    text = to_sql(tree)
    assert canon(parse_where(text, RT_FIELDS)) == canon(tree), text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree_strategy())
def test_round_trip_negated(tree: Predicate) -> None:
    neg = tree.negate()
    text = f"NOT ({to_sql(tree)})"
    if neg is None:
        with pytest.raises(PredicateError, match="no negation"):
            parse_where(text, RT_FIELDS)
    else:
        assert canon(parse_where(text, RT_FIELDS)) == canon(flat(neg)), text


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(codec="utf-8"), min_size=1, max_size=10))
def test_any_column_name_round_trips(name: str) -> None:
    fields = [DataField(0, name, parse_type("INT"))]
    p = LeafPredicate("Equal", name, 0, fields[0].type, (1,))
    assert parse_where(to_sql(p), fields) == p


def test_fixture_paths_exist() -> None:
    assert all(isinstance(p, Path) and p.exists() for p in oracle_paths())
