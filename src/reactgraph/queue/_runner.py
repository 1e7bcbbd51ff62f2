"""A worker's runs: each job's run started, resumed after its worker died, or left when it ended, on one agent per set
of options, and stopped as soon as the thread's lock is lost."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any

from reactgraph.agent import ReActAgent
from reactgraph.answers.typed import parse_signature
from reactgraph.config import make_config
from reactgraph.loading import load_model, load_tools
from reactgraph.persistence import open_store
from reactgraph.persistence.activity import Activity, error_text, this_owner
from reactgraph.persistence.base import CheckpointStoreError, Hold, RunNotFoundError
from reactgraph.queue._database import HOLD_CHECK_EVERY, JOB_KEY, LABELS, SPECS, RunInterrupted, lost_database

logger = logging.getLogger("reactgraph.queue")  # the package's one logger, as before it was split


class Runner:
    """Runs a worker's jobs: one agent per set of specs (model, tools, MCP servers, output schema), kept
    for the worker's life, on the queue's database."""

    def __init__(self, url: str, concurrency: int) -> None:
        self.url = url
        self._agents: dict[str, tuple[ReActAgent, dict[str, Any]]] = {}

    def agent(self, specs: dict[str, Any], playbook: bool = False) -> tuple[ReActAgent, dict[str, Any]]:
        """The agent for these specs (with the playbook in the queue's database when asked), and the
        overrides they select (the tools chosen by name)."""
        key = json.dumps(specs, sort_keys=True) + ("+playbook" if playbook else "")
        if key not in self._agents:
            registry, selection = load_tools(specs.get("tools"), specs.get("mcp"), specs.get("documents"))
            schema = parse_signature(specs["output_schema"]) if specs.get("output_schema") else None
            agent = ReActAgent(
                model=load_model(specs.get("model")), tools=registry, checkpointer=self.url, output_schema=schema,
                playbook=playbook,
            )
            self._agents[key] = (agent, {"tools": selection} if selection is not None else {})
        return self._agents[key]

    async def run(self, job_id: int, question: str, thread_id: str, options: dict[str, Any]) -> None:
        """Run the job's run to its end: start it, or resume it when this job's run has checkpoints
        (the job is a retry after its worker died), or nothing when that run has already ended. A run that fails,
        even before it starts (its tools or model cannot be loaded), is recorded ``failed`` with the error, so
        ``reactgraph runs`` shows it, not only the worker's log."""
        try:
            await self._run(job_id, question, thread_id, options)
        except RunInterrupted:  # retried, and resumed: no failure to show
            raise
        except Exception as exc:
            await asyncio.to_thread(self.record_failure, thread_id, question, exc)
            raise

    def record_failure(self, thread_id: str, question: str, exc: Exception) -> None:
        runs = open_store(self.url)
        try:
            runs.record(Activity(thread_id, "failed", question, this_owner(), time.time(), error_text(exc)))
        except CheckpointStoreError as error:
            logger.warning("the failure of %s could not be recorded: %s", thread_id, error)
        finally:
            runs.close()

    async def _run(self, job_id: int, question: str, thread_id: str, options: dict[str, Any]) -> None:
        specs = {key: options[key] for key in SPECS if key in options}
        agent, selected = self.agent(specs, make_config(**options.get("overrides", {})).learning.playbook)
        overrides = selected | options.get("overrides", {})
        labels = {LABELS[key]: value for key, value in specs.items()} | {JOB_KEY: str(job_id)}
        try:
            await self._drive_run(agent, job_id, question, thread_id, overrides, labels)
        except Exception as exc:
            if lost_database(exc):  # a restart: the job is retried, and its retry resumes the run
                raise RunInterrupted(f"run {thread_id} (job {job_id}) lost the database: {exc}") from exc
            raise

    async def _drive_run(
        self, agent: ReActAgent, job_id: int, question: str, thread_id: str, overrides: dict[str, Any], labels: dict[str, str]
    ) -> None:
        # the thread's advisory lock, waited for (the agent's runs take the same one: a run or resume of the thread
        # from anywhere else is refused meanwhile); the server releases it when this worker's connection ends
        async with agent.store.aholding(thread_id, wait=True) as hold:
            try:
                info = await asyncio.to_thread(agent.run_info, thread_id)
            except RunNotFoundError:
                info = None
            if info is None or info.metadata.get(JOB_KEY) != str(job_id):  # this job's run has not started
                # a cancel of this thread stored since submit (which cleared older ones) stops it while queued
                if await asyncio.to_thread(agent.store.cancel_requested, thread_id, math.inf):
                    logger.info("cancelled %s (job %s) while queued: not run", thread_id, job_id)
                    return
                drive = agent.arun(question, thread_id=thread_id, config={"metadata": labels}, **overrides)
            elif info.status in ("interrupted", "failed", "running"):  # no one else runs it: this worker holds the thread
                logger.info("resuming %s (job %s) from its last checkpoint", thread_id, job_id)
                drive = agent.aresume(thread_id, config={"metadata": labels}, **overrides)
            else:
                logger.info("already ended %s (job %s): %s, not run again", thread_id, job_id, info.reason)
                return
            result = await while_held(drive, hold, thread_id)
        logger.info("finished %s (job %s): %s", thread_id, job_id, result.termination_reason.value)

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[Runner]:
        """The runner; its agents closed at the end."""
        try:
            yield self
        finally:
            for agent, _ in self._agents.values():  # in a thread: the agent's async pool closes on this loop, waited for
                await asyncio.to_thread(agent.close)
            self._agents.clear()



async def while_held(drive: Awaitable[Any], hold: Hold, thread_id: str) -> Any:
    """``drive`` (a run or resume), cancelled as soon as the thread's lock is lost (a restart ended the connection
    that held it): another worker may then take the thread up, and two runs of it must never overlap. Its job is
    retried (RunInterrupted) and resumes the run once this worker holds the thread again."""
    run = asyncio.ensure_future(drive)  # in this context: the run sees the thread held, and does not take it again
    while not run.done():
        await asyncio.wait({run}, timeout=HOLD_CHECK_EVERY)
        if not run.done() and not await hold.alive():
            run.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await run
            raise RunInterrupted(f"run {thread_id} lost its lock on the thread (the database connection that held it ended)")
    return run.result()
