"""geometry and percentages: areas of basic shapes and the three everyday percentage questions.
A result that is a percentage says so (``15%``): a bare 15 is easily taken for the fraction."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import Field

from reactgraph.tools.builtin.calculator import FUNCTIONS, format_number
from reactgraph.tools.policy import InvalidArguments

Length = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


def _finite(value: float) -> str:
    if not math.isfinite(value):
        raise InvalidArguments("the result is too large to represent")
    return format_number(value)


def triangle_area(
    base: Annotated[Length, Field(description="Length of the base.")],
    height: Annotated[Length, Field(description="Height perpendicular to the base.")],
) -> str:
    """Area of a triangle from its base and height: base * height / 2."""
    return _finite(base * height / 2)


def rectangle_area(
    width: Annotated[Length, Field(description="Width.")],
    height: Annotated[Length, Field(description="Height.")],
) -> str:
    """Area of a rectangle: width * height."""
    return _finite(width * height)


def circle_area(radius: Annotated[Length, Field(description="Radius.")]) -> str:
    """Area of a circle: pi * radius^2."""
    return _finite(math.pi * radius * radius)


def percent_of(
    percent: Annotated[Finite, Field(description="The percentage, e.g. 15 for 15%.")],
    value: Annotated[Finite, Field(description="The value to take it of.")],
) -> str:
    """What is `percent`% of `value`? e.g. percent_of(15, 80) = 12."""
    return _finite(FUNCTIONS["percent_of"](percent, value))  # the formula the calculator reads too


def percentage_change(
    old: Annotated[Finite, Field(description="The value before.")],
    new: Annotated[Finite, Field(description="The value after.")],
) -> str:
    """Percentage change from `old` to `new`, e.g. 80 -> 100 is 25% (an increase); negative is a decrease."""
    if old == 0:
        raise InvalidArguments("percentage change from 0 is undefined")
    return _finite(FUNCTIONS["percentage_change"](old, new)) + "%"


def what_percent(
    part: Annotated[Finite, Field(description="The part.")],
    whole: Annotated[Finite, Field(description="The whole.")],
) -> str:
    """What percent of `whole` is `part`? e.g. what_percent(12, 80) = 15%."""
    if whole == 0:
        raise InvalidArguments("the whole must not be 0")
    return _finite(FUNCTIONS["what_percent"](part, whole)) + "%"
