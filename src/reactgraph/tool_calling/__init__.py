"""Tool-calling formats, one module each, every one answering the same three questions: how the
tools are described to the model, how a reply is read into thought / actions / answer, and how a
past turn is shown back.

- ``native`` (``_native``): the model's tool-calling API (``bind_tools``); calls a model writes as text are still read.
- ``text``: ``Thought: / Action: tool[input] / Observation:`` text, tools described in the prompt.
- ``json`` (``_json_calls``): ``{"name": ..., "arguments": {...}}`` in the reply, tools described as JSON schemas.

``auto`` (the default) starts native and moves a run to text when the model writes its calls as
text (``_auto``). The reading is shared by job: tags (``tags``), JSON calls in text
(``json_blocks``), text actions (``_actions``), argument binding (``_binding``). The modules whose names start with
``_`` are this package's own; the names below, ``reading``, ``tags``, ``text`` and ``json_blocks`` are its surface.
"""

from reactgraph.tool_calling._auto import FORMATS, next_format, prepare, starting_format
from reactgraph.tool_calling._base import Format
from reactgraph.tool_calling.reading import PARSE_FAILURE_KINDS, ParsedReply, ReadContext, parse_failed, reply_text
from reactgraph.tool_calling.tags import Tags

__all__ = [
    "FORMATS",
    "PARSE_FAILURE_KINDS",
    "Format",
    "ParsedReply",
    "ReadContext",
    "Tags",
    "next_format",
    "parse_failed",
    "prepare",
    "reply_text",
    "starting_format",
]
