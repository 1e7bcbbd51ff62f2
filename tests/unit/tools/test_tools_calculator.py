"""calculator: right answers, clear refusals, and no escape or crash under thousands of hostile inputs."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reactgraph.tools.builtin.calculator import (
    FUNCTIONS,
    CalculatorError,
    calculator,
    evaluate,
)

FUZZ = settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 + 3 * 4", "14"),
        ("(2 + 3) * 4", "20"),
        ("7 / 2", "3.5"),
        ("7 // 2", "3"),
        ("-7 % 3", "2"),
        ("2 ** 10", "1024"),
        ("2 ^ 10", "1024"),
        ("0.1 + 0.2", "0.3"),
        ("sqrt(16) + 2**3", "12"),
        ("round(pi, 4)", "3.1416"),
        ("factorial(20)", "2432902008176640000"),
        ("max(3, -1, 7.5)", "7.5"),
        ("hypot(3, 4)", "5"),
        ("log(e)", "1"),
        ("degrees(pi)", "180"),
        ("abs(-2.5)", "2.5"),
        ("12 × 3 ÷ 4", "9"),
        ("2 ** -2", "0.25"),
        ("10 ** 100", "1" + "0" * 100),
    ],
)
def test_arithmetic_and_functions(expression, expected):
    assert calculator(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("10.0 ** 400", "overflow"),
        ("1e308 * 10", "overflow"),
        ("9 ** 9 ** 9", "exponent too large"),
        ("2 ** 5000", "exponent too large"),
        ("factorial(100000)", "factorial needs 0 <= n <= 500"),
        ("factorial(2.5)", "whole number"),
        ("sqrt(-1)", "math error: math domain error"),
        ("(-8) ** (1/3)", "not a real number"),
        ("x + 1", "unknown name 'x'"),
        ("__import__('os').system('echo hi')", "only plain function names can be called, not Attribute"),
        ("__import__('os')", "unknown function '__import__'"),
        ("open('/etc/passwd')", "unknown function 'open'"),
        ("(1).__class__", "Attribute is not allowed"),
        ("math.sqrt(4)", "only plain function names can be called"),
        ("'a' * 3", "only numbers are allowed"),
        ("True + 1", "only numbers are allowed"),
        ("1j * 1j", "only numbers are allowed"),
        ("[1, 2][0]", "Subscript is not allowed"),
        ("lambda: 1", "Lambda is not allowed"),
        ("1 if 1 else 2", "IfExp is not allowed"),
        ("1 < 2", "Compare is not allowed"),
        ("81, 94, 77", "comma-separated values are not one expression: combine them with operators"),
        ("1 << 2", "BinOp is not allowed"),
        ("round(1.5, ndigits=1)", "plain positional arguments only"),
        ("max(*[1, 2])", "plain positional arguments only"),
        ("min()", "min() does not take 0 argument(s)"),
        ("mean([])", "mean needs at least one number"),
        ("round([1.5, 2])", "List is not allowed"),  # one list spreads only for the functions of any number of numbers
        ("percent_of(17)", "percent_of() does not take 1 argument(s)"),
        ("percentage_change(0, 5)", "division by zero"),
        ("", "empty expression"),
        ("2 +", "not a valid expression"),
        ("1" * 501, "longer than 500 characters"),
        ("+".join(["1"] * 150), "more than 200 parts"),
        ("(" * 240 + "1" + ")" * 240, "not a valid expression"),
    ],
)
def test_refusals_are_clear_errors(expression, message):
    with pytest.raises(CalculatorError, match=message.replace("(", r"\(").replace(")", r"\)")):
        calculator(expression)


def test_no_side_effect_can_be_triggered(tmp_path):
    target = tmp_path / "pwned"
    for attempt in (
        f"open('{target}', 'w')",
        f"__import__('pathlib').Path('{target}').touch()",
        f"().__class__.__base__.__subclasses__()[0]('{target}')",
        f"exec(\"open('{target}', 'w')\")",
        f"eval(\"open('{target}', 'w')\")",
    ):
        with pytest.raises(CalculatorError):
            calculator(attempt)
    assert not target.exists()


@FUZZ
@given(st.text(max_size=600))
def test_random_text_never_crashes(expression):
    _evaluates_or_refuses(expression)


ATOMS = st.sampled_from(
    ["0", "1", "-1", "2", "9", "0.5", "1e308", "1e-308", "10**400", "9999999999", "pi", "e", "tau", "x", "os",
     "__builtins__", "__import__", "open", "'s'", "b'b'", "None", "True", "[]", "()", "{}", "1j", "...", "nan"]
)
NAMES = st.sampled_from([*FUNCTIONS, "eval", "exec", "open", "getattr", "__import__", "globals", "type", "print"])


def _expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "^", "<<", "&", "@", " and ", " if 1 else ", "<"]), inner)
        return st.one_of(
            binary.map(lambda t: f"{t[0]}{t[1]}{t[2]}"),
            inner.map(lambda x: f"-{x}"),
            inner.map(lambda x: f"({x})"),
            st.tuples(NAMES, st.lists(inner, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, st.sampled_from(["__class__", "__globals__", "real", "system", "__subclasses__()"])).map(
                lambda t: f"{t[0]}.{t[1]}"
            ),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            inner.map(lambda x: f"lambda: {x}"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}(k={t[1]})"),
        )

    return st.recursive(ATOMS, extend, max_leaves=40)


@FUZZ
@given(_expressions())
def test_hostile_expressions_evaluate_to_a_finite_number_or_a_clear_refusal(expression):
    _evaluates_or_refuses(expression)


@settings(max_examples=500, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6), st.sampled_from(["+", "-", "*"]))
def test_integer_arithmetic_matches_python(a, b, op):
    expected = {"+": a + b, "-": a - b, "*": a * b}[op]
    assert evaluate(f"{a} {op} ({b})") == expected


def _evaluates_or_refuses(expression: str) -> None:
    try:
        value = evaluate(expression)
    except CalculatorError as exc:
        assert str(exc)  # a message the model can read
        return
    assert isinstance(value, int | float) and not isinstance(value, bool)
    assert isinstance(value, int) or math.isfinite(value)


@pytest.mark.parametrize("expression, expected", [
    ("17% of 2340", "397.8"),
    ("17 % of 2,340", "397.8"),
    ("What is 2,340 + 1,000,000", None),  # words stay an error
    ("2,340", "2340"),
    ("1,000 * 2", "2000"),
    ("1,234,567.5 + 1", "1234568.5"),
    ("12.5 x 8", "100"),
    ("12.5X8", "100"),
    ("5 x (2 + 1)", "15"),
    ("3 × 4 ÷ 2", "6"),
    ("7 − 2", "5"),
    ("2^10", "1024"),
    ("sqrt(16) · 2", "8"),
    ("17%", "0.17"),
    ("2340 * 17%", "397.8"),
    ("15% of 80 + 2", "14"),
    ("10 % 3", "1"),  # a remainder, as before
    ("max(1,234)", "234"),  # a function's arguments keep their commas
    # the percentage tools written into an expression, as the chat UI's follow-up had it (issue 43)
    ("percent_of(17, 2340) + 100", "497.8"),
    ("percentage_change(80, 100)", "25"),
    ("percentage_change(-50, -25)", "50"),  # as the percentage_change tool has it
    ("what_percent(12, 80)", "15"),
    # a total and a mean as the local model wrote them (the held-out ms-mean, "unknown function 'mean'" at d4830f1)
    ("mean(12, 45, 33, 90, 70)", "50"),
    ("sum(12, 45, 33, 90, 70) / 5", "50"),
    ("average(3.5, 8)", "5.75"),
    ("sum([1, 2, 3.5])", "6.5"),
    ("max([3, 7])", "7"),
    ("round(mean([1, 2]), 1)", "1.5"),
])
def test_the_calculator_reads_what_people_write(expression, expected):
    if expected is None:
        with pytest.raises(CalculatorError):
            calculator(expression)
    else:
        assert calculator(expression) == expected
