/**
 * What a CI service tells a test run about itself through its environment: which build this is (so the
 * shards of one build join one run), where to see it, and the branch and commit it tests. Pure: the
 * environment comes in as an object.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export interface CiBuild {
  /** The service, as Verdict records it (`github-actions`, `gitlab-ci`, …). */
  provider: string;
  /** The build's id in the service. */
  buildId?: string;
  /** The build's page. */
  url?: string;
  /**
   * The same for every shard (job, node, agent) of one build of one job, and different for a re-run of
   * it: the run's `ciRunId`.
   */
  ciRunId?: string;
  branch?: string;
  commit?: { sha: string; message?: string; author?: string };
}

const value = (env: Env, name: string): string | undefined => {
  const found = env[name]?.trim();
  return found ? found : undefined;
};

const joined = (...parts: (string | undefined)[]): string | undefined =>
  parts.every((part) => part !== undefined) ? parts.join('-') : undefined;

function commitOf(sha: string | undefined, message?: string, author?: string): CiBuild['commit'] {
  if (!sha) return undefined;
  return { sha, ...(message ? { message } : {}), ...(author ? { author } : {}) };
}

/** A branch as people name it: `refs/heads/main` → `main` (tags and pull refs are left as they are). */
const branchName = (ref: string | undefined) => ref?.replace(/^refs\/heads\//, '');

function githubActions(env: Env): CiBuild {
  const server = value(env, 'GITHUB_SERVER_URL') ?? 'https://github.com';
  const repository = value(env, 'GITHUB_REPOSITORY');
  const runId = value(env, 'GITHUB_RUN_ID');
  const attempt = value(env, 'GITHUB_RUN_ATTEMPT') ?? '1';
  const url =
    repository && runId ? `${server}/${repository}/actions/runs/${runId}/attempts/${attempt}` : undefined;
  return {
    provider: 'github-actions',
    buildId: runId,
    url,
    // The matrix jobs of one workflow run share the run id; a re-run is a new attempt, and a new Verdict run.
    ciRunId: joined('github', repository, runId, value(env, 'GITHUB_JOB'), attempt),
    // A pull request's head branch; the pushed branch otherwise.
    branch: value(env, 'GITHUB_HEAD_REF') ?? value(env, 'GITHUB_REF_NAME'),
    commit: commitOf(value(env, 'GITHUB_SHA'), undefined, value(env, 'GITHUB_ACTOR')),
  };
}

function gitlabCi(env: Env): CiBuild {
  const pipeline = value(env, 'CI_PIPELINE_ID');
  return {
    provider: 'gitlab-ci',
    buildId: pipeline,
    url: value(env, 'CI_PIPELINE_URL') ?? value(env, 'CI_JOB_URL'),
    // `parallel: N` jobs share the pipeline and the job name (without its " 1/N" suffix).
    ciRunId: joined('gitlab', value(env, 'CI_PROJECT_ID'), pipeline, jobName(value(env, 'CI_JOB_NAME'))),
    branch: value(env, 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME') ?? value(env, 'CI_COMMIT_REF_NAME'),
    commit: commitOf(
      value(env, 'CI_COMMIT_SHA'),
      value(env, 'CI_COMMIT_TITLE') ?? value(env, 'CI_COMMIT_MESSAGE'),
      value(env, 'CI_COMMIT_AUTHOR'),
    ),
  };
}

/** GitLab names the jobs of `parallel: 3` `test 1/3`, `test 2/3`…: one job for Verdict. */
const jobName = (name: string | undefined) => name?.replace(/ \d+\/\d+$/, '');

function jenkins(env: Env): CiBuild {
  return {
    provider: 'jenkins',
    buildId: value(env, 'BUILD_NUMBER'),
    url: value(env, 'BUILD_URL'),
    // `jenkins-<job>-<build number>`: parallel stages of one build share it.
    ciRunId: joined(
      'jenkins',
      value(env, 'BUILD_TAG') ?? joined(value(env, 'JOB_NAME'), value(env, 'BUILD_NUMBER')),
    ),
    branch: value(env, 'CHANGE_BRANCH') ?? value(env, 'BRANCH_NAME') ?? stripRemote(value(env, 'GIT_BRANCH')),
    commit: commitOf(value(env, 'GIT_COMMIT'), undefined, value(env, 'CHANGE_AUTHOR')),
  };
}

/** The Git plugin's `origin/main` → `main`. */
const stripRemote = (branch: string | undefined) => branch?.replace(/^origin\//, '');

function circleCi(env: Env): CiBuild {
  return {
    provider: 'circleci',
    buildId: value(env, 'CIRCLE_BUILD_NUM'),
    url: value(env, 'CIRCLE_BUILD_URL'),
    // The parallel nodes of one job share the workflow and the job's name.
    ciRunId: joined('circleci', value(env, 'CIRCLE_WORKFLOW_ID'), value(env, 'CIRCLE_JOB')),
    branch: value(env, 'CIRCLE_BRANCH'),
    commit: commitOf(value(env, 'CIRCLE_SHA1'), undefined, value(env, 'CIRCLE_USERNAME')),
  };
}

function azurePipelines(env: Env): CiBuild {
  const buildId = value(env, 'BUILD_BUILDID');
  const collection = value(env, 'SYSTEM_COLLECTIONURI');
  const project = value(env, 'SYSTEM_TEAMPROJECT');
  const url =
    collection && project && buildId
      ? `${collection.replace(/\/?$/, '/')}${encodeURIComponent(project)}/_build/results?buildId=${buildId}`
      : undefined;
  return {
    provider: 'azure-pipelines',
    buildId,
    url,
    // The agents of one parallel job share the build, the job's name and its attempt.
    ciRunId: joined(
      'azure',
      value(env, 'SYSTEM_TEAMPROJECTID') ?? project,
      buildId,
      value(env, 'SYSTEM_PHASENAME') ?? value(env, 'SYSTEM_JOBDISPLAYNAME'),
      value(env, 'SYSTEM_JOBATTEMPT') ?? '1',
    ),
    branch: branchName(value(env, 'SYSTEM_PULLREQUEST_SOURCEBRANCH') ?? value(env, 'BUILD_SOURCEBRANCH')),
    commit: commitOf(
      value(env, 'BUILD_SOURCEVERSION'),
      value(env, 'BUILD_SOURCEVERSIONMESSAGE'),
      value(env, 'BUILD_REQUESTEDFOR'),
    ),
  };
}

function buildkite(env: Env): CiBuild {
  return {
    provider: 'buildkite',
    buildId: value(env, 'BUILDKITE_BUILD_NUMBER'),
    url: value(env, 'BUILDKITE_BUILD_URL'),
    // The parallel jobs of one step share the build and the step; a retried job gets a new job id only.
    ciRunId: joined(
      'buildkite',
      value(env, 'BUILDKITE_BUILD_ID'),
      value(env, 'BUILDKITE_STEP_ID') ?? value(env, 'BUILDKITE_STEP_KEY'),
      value(env, 'BUILDKITE_RETRY_COUNT') ?? '0',
    ),
    branch: value(env, 'BUILDKITE_BRANCH'),
    commit: commitOf(
      value(env, 'BUILDKITE_COMMIT') === 'HEAD' ? undefined : value(env, 'BUILDKITE_COMMIT'),
      value(env, 'BUILDKITE_MESSAGE'),
      value(env, 'BUILDKITE_BUILD_AUTHOR'),
    ),
  };
}

const PROVIDERS: readonly { detect: (env: Env) => boolean; read: (env: Env) => CiBuild }[] = [
  { detect: (env) => env.GITHUB_ACTIONS === 'true', read: githubActions },
  { detect: (env) => env.GITLAB_CI === 'true', read: gitlabCi },
  { detect: (env) => env.CIRCLECI === 'true', read: circleCi },
  { detect: (env) => env.BUILDKITE === 'true', read: buildkite },
  { detect: (env) => (env.TF_BUILD ?? '').toLowerCase() === 'true', read: azurePipelines },
  { detect: (env) => value(env, 'JENKINS_URL') !== undefined, read: jenkins },
];

/**
 * The CI build this process runs in, read from its environment: GitHub Actions, GitLab CI, Jenkins,
 * CircleCI, Azure Pipelines or Buildkite; undefined elsewhere.
 *
 * @example const build = detectCi(process.env); // { provider: 'github-actions', ciRunId: 'github-acme/web-123-e2e-1', … }
 */
export function detectCi(env: Env): CiBuild | undefined {
  const provider = PROVIDERS.find((candidate) => candidate.detect(env));
  if (!provider) return undefined;
  const build = provider.read(env);
  // Fields the service did not give are left out, not sent as undefined.
  return Object.fromEntries(Object.entries(build).filter(([, field]) => field !== undefined)) as CiBuild;
}
