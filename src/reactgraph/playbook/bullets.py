"""A playbook bullet: one lesson from earlier runs, tied to the tool sequence it is about."""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from typing import Literal

from pydantic import BaseModel, Field

Section = Literal["strategies", "pitfalls", "observations"]
SECTIONS: tuple[Section, ...] = ("strategies", "pitfalls", "observations")

STEM = 6
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from give how i in into is it its me of on or result "
    "should that the their them then there these this to use using was what when where which who why "
    "will with you your".split()
)


def keywords(text: str) -> list[str]:
    """The content words of a text, in order, once each: lower case, two letters or more, no stopwords
    or numbers; '%' counts as 'percent'."""
    words = re.findall(r"[a-z][a-z_]+", text.lower().replace("%", " percent "))
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS))


def terms(text: str) -> set[str]:
    """What a question and a bullet are matched on: their keywords cut to STEM letters, so that
    'percent' meets 'percentage' and 'multiply' meets 'multiplied'."""
    return {w[:STEM] for w in keywords(text)}


def question_key(question: str) -> str:
    """A question as a digest (its words, case and spacing aside): the same question asked again finds the bullets
    it taught, and the bullet keeps no question text."""
    return hashlib.sha256(" ".join(question.lower().split()).encode(errors="surrogatepass")).hexdigest()[:16]


class Bullet(BaseModel):
    """A strategy (a tool sequence that answered), a pitfall (one that ended without an answer) or an
    observation (a tool error and what worked instead). ``helpful_count`` and ``harmful_count`` count
    the runs that bear it out or against it: its own runs, and runs it was shown in."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    content: str
    section: Section
    helpful_count: int = Field(default=0, ge=0)
    harmful_count: int = Field(default=0, ge=0)
    tags: list[str] = Field(default_factory=list)
    tool_sequence: list[str] = Field(default_factory=list)
    tool_success_rate: float = Field(default=1.0, ge=0.0, le=1.0)
    avg_iterations: float = Field(default=0.0, ge=0.0)
    runs: int = Field(default=1, ge=0, description="Runs merged into this bullet (the averages are over them).")
    sources: list[str] = Field(default_factory=list, description="The runs it came from: 'thread_id@start'.")
    lesson: bool = Field(default=False, description="Written by the model (a lesson in words), not by the rules.")
    question_key: str = Field(default="", description="The digest of the question it was learnt from (question_key).")
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)

    @property
    def shown_as_pitfall(self) -> bool:
        """Shown under 'avoid': a pitfall, or any bullet that hurt more than it helped."""
        return self.section == "pitfalls" or self.harmful_count > self.helpful_count

    def words(self) -> set[str]:
        return terms(" ".join([self.content, *self.tags, *self.tool_sequence]))
