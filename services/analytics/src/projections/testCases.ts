/** The test cases a project has run (`test_cases`): file, title, and every platform and tag seen. */
import type { SqlExecutor } from '@verdict/platform';
import { NONE, type ResultRow } from './executions';

/** The test cases table, in schema `s`. */
export function testCaseTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.test_cases (
       project_id text NOT NULL,
       case_id text NOT NULL,
       file text NOT NULL,
       title text NOT NULL,
       full_title text NOT NULL,
       platforms text[] NOT NULL,
       tags text[] NOT NULL,
       PRIMARY KEY (project_id, case_id)
     )`,
  ];
}

const SEPARATOR = '\u001f';

/** Files new test cases, and new platforms and tags of known ones; a batch of known ones writes nothing. */
export async function upsertTestCases(tx: SqlExecutor, s: string, rows: ResultRow[]): Promise<void> {
  const cases = new Map<string, ResultRow & { platforms: Set<string>; tagSet: Set<string> }>();
  for (const row of rows) {
    const key = `${row.project_id}${SEPARATOR}${row.case_id}`;
    const seen = cases.get(key) ?? { ...row, platforms: new Set<string>(), tagSet: new Set<string>() };
    if (row.platform !== NONE) seen.platforms.add(row.platform);
    for (const tag of row.tags) seen.tagSet.add(tag);
    cases.set(key, seen);
  }
  const list = [...cases.values()];
  const joined = (values: Set<string>) => [...values].join(SEPARATOR);
  await tx.query(
    `INSERT INTO ${s}.test_cases AS t (project_id, case_id, file, title, full_title, platforms, tags)
     SELECT u.project_id, u.case_id, u.file, u.title, u.full_title,
       ARRAY(SELECT DISTINCT p FROM unnest(string_to_array(u.platforms, E'\\x1f')) AS p WHERE p <> '' ORDER BY 1),
       ARRAY(SELECT DISTINCT x FROM unnest(string_to_array(u.tags, E'\\x1f')) AS x WHERE x <> '' ORDER BY 1)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
       AS u(project_id, case_id, file, title, full_title, platforms, tags)
     WHERE NOT EXISTS (
       SELECT 1 FROM ${s}.test_cases k WHERE k.project_id = u.project_id AND k.case_id = u.case_id
         AND k.platforms @> coalesce(string_to_array(nullif(u.platforms, ''), E'\\x1f'), '{}')
         AND k.tags @> coalesce(string_to_array(nullif(u.tags, ''), E'\\x1f'), '{}'))
     ON CONFLICT (project_id, case_id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(t.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT x FROM unnest(t.tags || EXCLUDED.tags) AS x ORDER BY 1)
     WHERE NOT (t.platforms @> EXCLUDED.platforms AND t.tags @> EXCLUDED.tags)`,
    [
      list.map((c) => c.project_id),
      list.map((c) => c.case_id),
      list.map((c) => c.file),
      list.map((c) => c.title),
      list.map((c) => c.full_title),
      list.map((c) => joined(c.platforms)),
      list.map((c) => joined(c.tagSet)),
    ],
  );
}
