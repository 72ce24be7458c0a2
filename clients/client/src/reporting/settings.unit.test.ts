import { resolveSettings, runPageUrl, startBody } from './settings';

const connection = {
  VERDICT_URL: 'http://localhost:8080',
  VERDICT_TOKEN: 'svc_pat_x',
  VERDICT_PROJECT: 'p1',
};

describe('resolveSettings', () => {
  it('when nothing is configured, then one line names every missing setting with its variable', () => {
    expect(resolveSettings({}, {})).toEqual({
      status: 'invalid',
      problem:
        'not reporting to Verdict: no url (VERDICT_URL), no token (VERDICT_TOKEN), no project (VERDICT_PROJECT) is set',
    });
  });

  it('when the URL is not an http(s) address, then the line says so', () => {
    const result = resolveSettings({}, { ...connection, VERDICT_URL: 'localhost:8080' });
    expect(result.status).toBe('invalid');
    expect(result.status === 'invalid' && result.problem).toMatch(/^not reporting to Verdict: baseUrl/);
  });

  it('when options and variables both say something, then the options win', () => {
    const result = resolveSettings(
      { project: 'p2', branch: 'feature' },
      { ...connection, VERDICT_BRANCH: 'main' },
    );
    expect(result.status === 'ready' && result.settings).toMatchObject({ project: 'p2', branch: 'feature' });
  });

  it('when VERDICT_DISABLED is set, or enabled is false, then the reporter is off', () => {
    expect(resolveSettings({}, { ...connection, VERDICT_DISABLED: '1' }).status).toBe('disabled');
    expect(resolveSettings({ enabled: false }, connection).status).toBe('disabled');
  });

  it('when running in CI, then the ciRunId, branch, commit and build page come from it unless given', () => {
    const ci = {
      GITLAB_CI: 'true',
      CI_PROJECT_ID: '1',
      CI_PIPELINE_ID: '2',
      CI_JOB_NAME: 'e2e',
      CI_COMMIT_REF_NAME: 'main',
      CI_COMMIT_SHA: 'abc',
    };
    const fromCi = resolveSettings({}, { ...connection, ...ci });
    expect(fromCi.status === 'ready' && fromCi.settings).toMatchObject({
      ciRunId: 'gitlab-1-2-e2e',
      branch: 'main',
      commitSha: 'abc',
    });
    const given = resolveSettings({ ciRunId: 'mine' }, { ...connection, ...ci, VERDICT_COMMIT_SHA: 'def' });
    expect(given.status === 'ready' && given.settings).toMatchObject({ ciRunId: 'mine', commitSha: 'def' });
  });

  it('when sizes are not positive numbers, then the defaults stand (200 a batch, 1 s, 30 s)', () => {
    const result = resolveSettings(
      { batchSize: 0, flushIntervalMs: -1, finishTimeoutMs: Number.NaN },
      connection,
    );
    expect(result.status === 'ready' && result.settings).toMatchObject({
      batchSize: 200,
      flushIntervalMs: 1_000,
      finishTimeoutMs: 30_000,
      spoolDir: '.verdict/spool',
    });
  });
});

describe('runPageUrl', () => {
  it('when the address is the server, a path behind a proxy, or the API base, then the page is under the server', () => {
    expect(runPageUrl('http://localhost:8080', 'p1', 'r1')).toBe('http://localhost:8080/projects/p1/runs/r1');
    expect(runPageUrl('https://ci.example.com/verdict/', 'p1', 'r1')).toBe(
      'https://ci.example.com/verdict/projects/p1/runs/r1',
    );
    expect(runPageUrl('http://h:1/api/public/v1', 'p 1', 'r1')).toBe('http://h:1/projects/p%201/runs/r1');
  });
});

describe('startBody', () => {
  it('when Git describes the commit the CI named, then its message and author come along; another commit’s do not', () => {
    const ready = resolveSettings({}, { ...connection, VERDICT_COMMIT_SHA: 'abc' });
    if (ready.status !== 'ready') throw new Error('settings');
    const same = startBody(ready.settings, {
      ciRunId: 'r',
      git: { sha: 'abc', message: 'Fix', author: 'Ada', branch: 'main' },
    });
    expect(same).toEqual({
      ciRunId: 'r',
      branch: 'main',
      commit: { sha: 'abc', message: 'Fix', author: 'Ada' },
    });
    const other = startBody(ready.settings, { ciRunId: 'r', git: { sha: 'zzz', message: 'Other' } });
    expect(other.commit).toEqual({ sha: 'abc' });
  });
});
