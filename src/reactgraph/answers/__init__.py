"""What a run gives back: ``result`` (ReActResult, the trace, TerminationReason), ``typed`` (an answer read into
an output schema), ``confidence`` (how likely the answer is right), ``non_answers`` (final replies that are no
answer) and ``waiting`` (a run paused for a person: the question, the calls to approve, the answers to them)."""
