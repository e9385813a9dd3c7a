
-- What recall reads of a validated episode, in one row (see fts.py): the partitions it is
-- recalled from, its words and its vector. It replaces episode_terms, whose words each
-- carried their partition's key (a GIN index of an entry per partition and word: 2.5 GB of
-- the 5.3 GB a million episodes took), and episode_vectors, both a row per partition.
CREATE FUNCTION memory_doc(words text[], weight text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    BEGIN ATOMIC
        SELECT coalesce(
            string_agg(quote_literal(memory_stem(w)) || ':' || least(n, 16383) || weight, ' '),
            ''
        )::tsvector
        FROM unnest(words) WITH ORDINALITY AS t (w, n);
    END;
CREATE TABLE episode_recall (
    episode_id bigint PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE,
    partitions text[] NOT NULL,
    doc tsvector NOT NULL,
    vector bytea
);
-- A recall reads its partitions' rows from this index: fastupdate off, so no query scans
-- a list of pending entries.
CREATE INDEX episode_recall_partitions ON episode_recall USING gin (partitions)
    WITH (fastupdate = off);
INSERT INTO episode_recall (episode_id, partitions, doc, vector)
SELECT terms.episode_id, terms.partitions,
    coalesce(
        (SELECT string_agg(
            quote_literal(substr(lexeme, strpos(lexeme, '_') + 1)) || coalesce(
                ':' || nullif(array_to_string(
                    ARRAY(SELECT p || w FROM unnest(positions, weights) AS x (p, w)), ','
                ), ''),
                ''
            ),
            ' '
        ) FROM unnest(terms.doc)),
        ''
    )::tsvector,
    (SELECT v.vector FROM episode_vectors AS v WHERE v.episode_id = terms.episode_id LIMIT 1)
FROM (
    SELECT episode_id, array_agg(partition ORDER BY partition) AS partitions,
        (array_agg(doc))[1] AS doc
    FROM episode_terms GROUP BY episode_id
) AS terms;
DROP TABLE episode_terms;
DROP TABLE episode_vectors;
DROP FUNCTION memory_words;
