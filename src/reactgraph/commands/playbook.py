"""``reactgraph playbook``: list, show, remove, clear, export and import the bullets learnt from
earlier runs, where ``--playbook`` runs keep them: ``playbook.sqlite`` beside the checkpoint file, or
the Postgres database of a ``postgresql://`` ``--db``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.table import Table

from reactgraph.commands import EXIT_OK, UsageError
from reactgraph.commands.console import output_console
from reactgraph.persistence import open_store
from reactgraph.persistence.base import default_db, is_postgres_url
from reactgraph.playbook import Playbook, close_store, playbook_store
from reactgraph.playbook.book import STORE_FILE


def cmd_playbook(args: argparse.Namespace) -> int:
    """reactgraph playbook ACTION."""
    db = args.db or default_db()
    if not is_postgres_url(db):
        path = Path(db).parent / STORE_FILE
        if args.action != "import" and not path.exists():
            raise UsageError(f"no playbook at {path.absolute()}: runs with --playbook write one")
    runs = open_store(db)
    store = playbook_store(runs)
    try:
        book = Playbook(store, args.name)
        if args.action == "list":
            bullets = book.list(args.section)
            if args.json:
                sys.stdout.write(json.dumps([b.model_dump(mode="json") for b in bullets], indent=1) + "\n")
                return EXIT_OK
            table = Table(title=f"playbook {args.name!r}: {len(bullets)} bullet(s)")
            for column in ("id", "section", "helped", "hurt", "tools", "content"):
                table.add_column(column, overflow="fold")
            for b in bullets:
                table.add_row(b.id, b.section, str(b.helpful_count), str(b.harmful_count), " -> ".join(b.tool_sequence), b.content)
            output_console().print(table)
        elif args.action == "show":
            sys.stdout.write(book.show(args.bullet).model_dump_json(indent=1) + "\n")
        elif args.action == "remove":
            book.remove(args.bullet)
            print(f"removed {args.bullet}")
        elif args.action == "clear":
            print(f"removed {book.clear()} bullet(s)")
        elif args.action == "export":
            text = book.export_json() + "\n"
            if args.out:
                args.out.write_text(text)
            else:
                sys.stdout.write(text)
        else:
            try:
                text = args.file.read_text(encoding="utf-8")
            except OSError as exc:
                raise UsageError(f"{args.file}: {exc.strerror}") from None
            except UnicodeDecodeError as exc:
                raise UsageError(f"{args.file}: not a playbook export: not UTF-8 text (byte {exc.start})") from None
            print(f"imported {book.import_json(text)} bullet(s)")
    finally:
        close_store(store)
        runs.close()
    return EXIT_OK
