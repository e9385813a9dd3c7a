"""Drivers the tests and the benchmarks share: the bot under test driven over signed HTTP
(:mod:`tests.support.harness`) or as a child process (:mod:`tests.support.process`), in-process
stand-ins for the agent's collaborators (:mod:`tests.support.agent`), Block Kit's limits
(:mod:`tests.support.block_kit`) and throwaway PostgreSQL schemas
(:mod:`tests.support.postgres_scratch`). No pytest here: benchmarks import these too."""
