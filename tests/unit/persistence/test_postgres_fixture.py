"""The throwaway PostgreSQL server the Postgres tests run against."""

from __future__ import annotations

import psycopg
import pytest

from tests.postgres import with_database


def test_each_test_gets_an_empty_database_of_its_own(postgres_server, postgres_url):
    with psycopg.connect(postgres_url) as conn:
        conn.execute("CREATE TABLE mine (x int)")
        assert conn.execute("SELECT current_database()").fetchone()[0] != "postgres"
    with psycopg.connect(postgres_server) as conn:
        tables = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'mine'").fetchone()
    assert tables[0] == 0


def test_a_wrong_password_is_refused(postgres_url):
    wrong = postgres_url.replace(":reactgraph-test@", ":wrong@")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong).close()


def test_an_unknown_database_is_refused(postgres_server):
    with pytest.raises(psycopg.OperationalError, match="does not exist"):
        psycopg.connect(with_database(postgres_server, "nope")).close()
