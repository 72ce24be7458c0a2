import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkFailureAnalysis, type Answer } from './failureAnalysis';
import { randomPort, type RunningProcess, startVerdict } from './processes';

// checkFailureAnalysis is shaped so that the distributed mode can tell the same history (see its module).
describe('failure analysis in the embedded mode (npm start)', () => {
  let dataDir: string;
  let verdict: RunningProcess | null = null;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-failures-'));
  });
  afterEach(async () => {
    await verdict?.stop();
    verdict = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when a feature branch run follows a main run, then its failures get verdicts, the comparison, the error groups and the suspects say what changed', async () => {
    const port = randomPort();
    verdict = startVerdict('start', {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    await verdict.waitFor(`http://localhost:${port}`);
    const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
    const token = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1] ?? '';
    expect([projectId, token].every((value) => value !== '')).toBe(true);

    await checkFailureAnalysis(async (method, urlPath, body): Promise<Answer> => {
      const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : JSON.parse(text) };
    }, projectId);
  });
});
