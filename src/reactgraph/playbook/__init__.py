"""A playbook of strategies and pitfalls learnt from past runs (agentic context engineering).

The reflector turns a finished run into bullets, the curator merges them into a LangGraph
``BaseStore``, and think shows the bullets retrieved for the question in the system prompt. See
``Playbook`` for the Python interface, ``AgentConfig.playbook*`` for the settings. ``_curator``, ``_retrieval`` and
``_locking`` are the package's own."""

from reactgraph.playbook.book import LessonWriter, Playbook, PlaybookError, close_store, playbook_store, sqlite_store
from reactgraph.playbook.bullets import Bullet, Section

__all__ = ["Bullet", "LessonWriter", "close_store", "Playbook", "PlaybookError", "Section", "playbook_store", "sqlite_store"]
