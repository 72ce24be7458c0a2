import { detectCi } from './ci';

describe('detectCi', () => {
  it('when no CI service is in the environment, then there is no build', () => {
    expect(detectCi({ PATH: '/usr/bin', CI: 'true' })).toBeUndefined();
  });

  it('when GitHub Actions runs two matrix shards of a job, then both name one run, its page, branch and commit', () => {
    const shard = (index: string) => ({
      GITHUB_ACTIONS: 'true',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_RUN_ID: '7001',
      GITHUB_RUN_ATTEMPT: '2',
      GITHUB_JOB: 'e2e',
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: 'abc123',
      GITHUB_ACTOR: 'ada',
      MATRIX_SHARD: index,
    });
    expect(detectCi(shard('1'))).toEqual({
      provider: 'github-actions',
      buildId: '7001',
      url: 'https://github.com/acme/shop/actions/runs/7001/attempts/2',
      ciRunId: 'github-acme/shop-7001-e2e-2',
      branch: 'main',
      commit: { sha: 'abc123', author: 'ada' },
    });
    expect(detectCi(shard('2'))?.ciRunId).toBe(detectCi(shard('1'))?.ciRunId);
  });

  it('when a GitHub workflow is re-run, then the attempt makes it another run', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_REPOSITORY: 'a/b', GITHUB_RUN_ID: '1', GITHUB_JOB: 'j' };
    expect(detectCi({ ...env, GITHUB_RUN_ATTEMPT: '1' })?.ciRunId).not.toBe(
      detectCi({ ...env, GITHUB_RUN_ATTEMPT: '2' })?.ciRunId,
    );
  });

  it('when a pull request runs on GitHub Actions, then the branch is its head branch', () => {
    expect(
      detectCi({ GITHUB_ACTIONS: 'true', GITHUB_HEAD_REF: 'feature/cart', GITHUB_REF_NAME: '42/merge' })
        ?.branch,
    ).toBe('feature/cart');
  });

  it('when GitLab CI runs `parallel: 2`, then both jobs name one run of the pipeline', () => {
    const job = (name: string) =>
      detectCi({
        GITLAB_CI: 'true',
        CI_PROJECT_ID: '12',
        CI_PIPELINE_ID: '345',
        CI_PIPELINE_URL: 'https://gitlab.example.com/acme/shop/-/pipelines/345',
        CI_JOB_NAME: name,
        CI_COMMIT_REF_NAME: 'main',
        CI_COMMIT_SHA: 'def456',
        CI_COMMIT_TITLE: 'Fix the cart',
        CI_COMMIT_AUTHOR: 'Ada <ada@example.com>',
      });
    expect(job('e2e 1/2')).toEqual({
      provider: 'gitlab-ci',
      buildId: '345',
      url: 'https://gitlab.example.com/acme/shop/-/pipelines/345',
      ciRunId: 'gitlab-12-345-e2e',
      branch: 'main',
      commit: { sha: 'def456', message: 'Fix the cart', author: 'Ada <ada@example.com>' },
    });
    expect(job('e2e 2/2')?.ciRunId).toBe('gitlab-12-345-e2e');
  });

  it('when Jenkins runs a build, then its tag names the run and the Git plugin’s branch loses its remote', () => {
    expect(
      detectCi({
        JENKINS_URL: 'https://ci.example.com/',
        BUILD_TAG: 'jenkins-shop-88',
        BUILD_NUMBER: '88',
        BUILD_URL: 'https://ci.example.com/job/shop/88/',
        GIT_BRANCH: 'origin/main',
        GIT_COMMIT: 'a1b2c3',
      }),
    ).toEqual({
      provider: 'jenkins',
      buildId: '88',
      url: 'https://ci.example.com/job/shop/88/',
      ciRunId: 'jenkins-jenkins-shop-88',
      branch: 'main',
      commit: { sha: 'a1b2c3' },
    });
  });

  it('when CircleCI runs parallel nodes of a job, then the workflow and job name one run', () => {
    const node = (index: string) =>
      detectCi({
        CIRCLECI: 'true',
        CIRCLE_WORKFLOW_ID: 'wf-1',
        CIRCLE_JOB: 'e2e',
        CIRCLE_NODE_INDEX: index,
        CIRCLE_BUILD_NUM: '9',
        CIRCLE_BUILD_URL: 'https://circleci.com/gh/acme/shop/9',
        CIRCLE_BRANCH: 'main',
        CIRCLE_SHA1: 'fff',
      });
    expect(node('0')).toMatchObject({ provider: 'circleci', ciRunId: 'circleci-wf-1-e2e', branch: 'main' });
    expect(node('1')?.ciRunId).toBe(node('0')?.ciRunId);
  });

  it('when Azure Pipelines runs, then the build’s results page and the source branch are read', () => {
    expect(
      detectCi({
        TF_BUILD: 'True',
        BUILD_BUILDID: '501',
        SYSTEM_COLLECTIONURI: 'https://dev.azure.com/acme/',
        SYSTEM_TEAMPROJECT: 'Shop App',
        SYSTEM_TEAMPROJECTID: 'p-1',
        SYSTEM_PHASENAME: 'e2e',
        SYSTEM_JOBATTEMPT: '1',
        BUILD_SOURCEBRANCH: 'refs/heads/main',
        BUILD_SOURCEVERSION: 'aaa',
        BUILD_SOURCEVERSIONMESSAGE: 'Fix',
      }),
    ).toEqual({
      provider: 'azure-pipelines',
      buildId: '501',
      url: 'https://dev.azure.com/acme/Shop%20App/_build/results?buildId=501',
      ciRunId: 'azure-p-1-501-e2e-1',
      branch: 'main',
      commit: { sha: 'aaa', message: 'Fix' },
    });
  });

  it('when Buildkite runs parallel jobs of a step, then build and step name one run; a retry another', () => {
    const env = {
      BUILDKITE: 'true',
      BUILDKITE_BUILD_ID: 'b-1',
      BUILDKITE_STEP_ID: 's-1',
      BUILDKITE_BUILD_NUMBER: '12',
      BUILDKITE_BUILD_URL: 'https://buildkite.com/acme/shop/builds/12',
      BUILDKITE_BRANCH: 'main',
      BUILDKITE_COMMIT: 'ccc',
      BUILDKITE_MESSAGE: 'Fix',
      BUILDKITE_BUILD_AUTHOR: 'Ada',
    };
    expect(detectCi({ ...env, BUILDKITE_PARALLEL_JOB: '0' })).toEqual({
      provider: 'buildkite',
      buildId: '12',
      url: 'https://buildkite.com/acme/shop/builds/12',
      ciRunId: 'buildkite-b-1-s-1-0',
      branch: 'main',
      commit: { sha: 'ccc', message: 'Fix', author: 'Ada' },
    });
    expect(detectCi({ ...env, BUILDKITE_RETRY_COUNT: '1' })?.ciRunId).toBe('buildkite-b-1-s-1-1');
  });
});
