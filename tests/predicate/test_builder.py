"""The Python builder: col(...) expressions bound later to a row type."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest

from paimon_lens.predicate import LeafPredicate, PredicateError, col, parse_where
from paimon_lens.predicate.builder import Expr, bind
from paimon_lens.types import Timestamp, parse_row_type
from paimon_lens.values import float32

FIELDS = parse_row_type(
    "id BIGINT, country STRING, score INT, amount DOUBLE, price DECIMAL(10, 2), f FLOAT, flag BOOLEAN, "
    "d DATE, t TIME, ts TIMESTAMP(6), ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, bin BYTES, tiny TINYINT"
)


def same(expr: Expr, sql: str) -> None:
    assert bind(expr, FIELDS) == parse_where(sql, FIELDS)


def test_comparisons_match_the_parser() -> None:
    same(col("country") == "US", "country = 'US'")
    same(col("country") != "US", "country <> 'US'")
    same(col("score") < 5, "score < 5")
    same(col("score") <= 5, "score <= 5")
    same(col("score") > 5, "score > 5")
    same(col("score") >= 5, "score >= 5")
    same(5 < col("score"), "score > 5")  # noqa: SIM300 - reflected by Python
    same(col("id") == None, "id = NULL")  # noqa: E711 - a null literal, as Paimon builds it


def test_other_leaves() -> None:
    same(col("score").between(1, 5), "score BETWEEN 1 AND 5")
    same(col("score").isin([1, 2, 3]), "score IN (1, 2, 3)")
    same(col("score").notin([1, None]), "score NOT IN (1, NULL)")
    same(col("country").is_null(), "country IS NULL")
    same(col("country").is_not_null(), "country IS NOT NULL")
    same(col("country").like("Z%"), "country LIKE 'Z%'")
    same(col("country").like("a_c"), "country LIKE 'a_c'")
    assert bind(col("country").startswith("Z"), FIELDS) == parse_where("country LIKE 'Z%'", FIELDS)
    assert bind(col("country").endswith("Z"), FIELDS).function == "EndsWith"
    assert bind(col("country").contains("Z%"), FIELDS).literals == ("Z%",)  # type: ignore[union-attr]


def test_combinators_and_not() -> None:
    same((col("country") == "US") & col("score").between(1, 5) | col("id").is_null(),
         "(country = 'US' AND score BETWEEN 1 AND 5) OR id IS NULL")
    same(~((col("score") == 1) & (col("country") == "x")), "NOT (score = 1 AND country = 'x')")
    same(~col("score").between(1, 2) & (col("id") == 3), "score NOT BETWEEN 1 AND 2 AND id = 3")
    same(~~(col("score") == 1), "score = 1")
    flat = bind((col("id") == 1) & ((col("id") == 2) & (col("id") == 3)), FIELDS)
    assert str(flat) == "And([Equal(id, 1), Equal(id, 2), Equal(id, 3)])"


def test_literal_casts() -> None:
    assert bind(col("amount") == 5, FIELDS).literals == (5.0,)  # type: ignore[union-attr]
    assert bind(col("f") == 0.1, FIELDS).literals == (float32(0.1),)  # type: ignore[union-attr]
    assert bind(col("price") == Decimal("1.255"), FIELDS).literals == (Decimal("1.26"),)  # type: ignore[union-attr]
    assert bind(col("price") == 1.5, FIELDS).literals == (Decimal("1.50"),)  # type: ignore[union-attr]
    assert bind(col("d") == dt.date(1967, 6, 17), FIELDS).literals == (-929,)  # type: ignore[union-attr]
    assert bind(col("d") == "1970-01-02", FIELDS).literals == (1,)  # type: ignore[union-attr]
    assert bind(col("t") == dt.time(0, 0, 1, 500_000), FIELDS).literals == (1500,)  # type: ignore[union-attr]
    naive = dt.datetime(2020, 1, 1, 10, 0, 0, 123456)
    assert bind(col("ts") == naive, FIELDS).literals == (Timestamp.from_datetime(naive),)  # type: ignore[union-attr]
    aware = dt.datetime(2020, 1, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert bind(col("ltz") == aware, FIELDS).literals == (  # type: ignore[union-attr]
        Timestamp.from_datetime(dt.datetime(2020, 1, 1, 10)),)
    assert bind(col("ts") == Timestamp(5, 7), FIELDS).literals == (Timestamp(5, 7),)  # type: ignore[union-attr]
    assert bind(col("bin") == b"\x01", FIELDS).literals == (b"\x01",)  # type: ignore[union-attr]
    assert bind(col("flag") == True, FIELDS).literals == (True,)  # type: ignore[union-attr] # noqa: E712
    assert math.isinf(bind(col("amount") > math.inf, FIELDS).literals[0])  # type: ignore[union-attr]
    assert bind(col("COUNTRY") == "x", FIELDS).field == "country"  # type: ignore[union-attr]


def test_in_expansion_option() -> None:
    p = bind(col("score").isin([1, 2, 3]), FIELDS, paimon_in_expansion=True)
    assert str(p) == "Or([Equal(score, 1), Or([Equal(score, 2), Equal(score, 3)])])"
    p = bind(col("score").notin([1, 2, 3]), FIELDS, paimon_in_expansion="0.9")
    assert str(p) == "And([And([NotEqual(score, 1), NotEqual(score, 2)]), NotEqual(score, 3)])"


def test_bind_accepts_where_text() -> None:
    assert bind("score = 1", FIELDS) == LeafPredicate("Equal", "score", 2, FIELDS[2].type, (1,))


def test_errors_name_the_sub_expression() -> None:
    with pytest.raises(PredicateError) as e:
        bind((col("id") == 1) & (col("contry") == "DE"), FIELDS)
    assert "unknown column 'contry'" in str(e.value) and "did you mean 'country'" in str(e.value)
    assert e.value.fragment == "contry = 'DE'"
    with pytest.raises(PredicateError) as e:
        bind(col("tiny") == 300, FIELDS)
    assert "out of range for TINYINT" in str(e.value) and e.value.fragment == "tiny = 300"
    with pytest.raises(PredicateError) as e:
        bind(col("score") == "abc", FIELDS)
    assert "not an integer" in str(e.value)
    with pytest.raises(PredicateError) as e:
        bind(col("score") == 1.5, FIELDS)
    assert "not an integer" in str(e.value)
    with pytest.raises(PredicateError) as e:
        bind(~col("country").startswith("Z"), FIELDS)
    assert "no negation of StartsWith" in str(e.value) and "NOT (StartsWith(country, 'Z'))" in str(e.value)
    with pytest.raises(PredicateError) as e:
        bind(col("score").startswith("1"), FIELDS)
    assert "needs a CHAR/VARCHAR/STRING column" in str(e.value)


def test_misuse_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="two columns"):
        _ = col("id") == col("score")  # type: ignore[operator]
    with pytest.raises(TypeError, match="& / \\| / ~"):
        bool(col("id") == 1)
    with pytest.raises(TypeError):
        _ = (col("id") == 1) & True  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = col("id") == object()
    with pytest.raises(TypeError):
        bind(42, FIELDS)  # type: ignore[arg-type]


def test_expr_repr() -> None:
    assert repr((col("a") == 1) | col("b").is_null()) == "<a = 1 OR b IS NULL>"
    assert repr(col("a")) == "col('a')"
