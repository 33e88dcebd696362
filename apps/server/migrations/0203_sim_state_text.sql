-- The walk's state is written after every tick (once a second). As jsonb, PGlite spent ~10 ms of the
-- event loop a write on parsing and compressing ~80-160 KB of JSON; as text stored out of line without
-- compression (EXTERNAL) it is ~3 ms (docs/performance.md "The simulated market's save"). Nothing
-- queries inside it: it is read back whole at start.
ALTER TABLE sim_state ALTER COLUMN state TYPE text USING state::text;
ALTER TABLE sim_state ALTER COLUMN state SET STORAGE EXTERNAL;
