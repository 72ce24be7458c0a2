/**
 * What the access checks need to know about a public API request, from its method and its path below
 * the API prefix: the project it names and the kind of operation (which role it needs, which rate-limit
 * buckets it draws on). Fixed segments compare case-insensitively and after percent-decoding, and empty
 * segments are ignored, because Express routes `/P1/Reports/` and `/p1/report%73` to the same handler as
 * `/p1/reports`; a check that saw them differently could be walked around.
 */

export type OperationKind =
  | 'read'
  | 'write'
  /** Automated-run ingest (API.md): its own rate bucket instead of the write bucket. */
  | 'ingest'
  /** `POST /{projectId}/manual-runs` (spec §8: 10 a minute). */
  | 'manual-run-creation'
  /** `POST /{projectId}/reports` (spec §8: 1 a minute). */
  | 'pdf-generation'
  /** Any write under `/{projectId}/webhooks` (spec §4.9: owner or admin only). */
  | 'webhook-write';

export interface ApiRequest {
  /** The first path segment when more follow it (`/{projectId}/…`); null for paths such as `/openapi.json`. */
  projectId: string | null;
  /** Every kind but `read` changes something: it needs the owner, admin or member role (spec §5.4). */
  isWrite: boolean;
  kind: OperationKind;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * First segments that name the gateway's own routes, never a project (`/session/tokens/{id}`): project ids
 * are minted ids, so none is ever one of these words.
 */
const NOT_PROJECTS = new Set(['session']);
const RUN_INGEST_ACTIONS = new Set(['results', 'artifacts', 'coverage', 'finish']);

/**
 * Classifies a request by method and by its path relative to the API prefix.
 *
 * @example describeRequest('POST', '/p1/test-runs/r1/results'); // { projectId: 'p1', isWrite: true, kind: 'ingest' }
 */
export function describeRequest(method: string, path: string): ApiRequest {
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  const first = segments[0];
  const projectId = segments.length >= 2 && !NOT_PROJECTS.has(first!.toLowerCase()) ? first! : null;
  const isWrite = WRITE_METHODS.has(method.toUpperCase());
  if (!isWrite) return { projectId, isWrite, kind: 'read' };
  const below = projectId === null ? [] : segments.slice(1).map((segment) => segment.toLowerCase());
  return { projectId, isWrite, kind: writeKind(method.toUpperCase(), below) };
}

/** The kind of a write from the segments below `/{projectId}`. */
function writeKind(method: string, below: string[]): OperationKind {
  const [resource, id, action] = below;
  if (resource === 'webhooks') return 'webhook-write';
  if (method !== 'POST') return 'write';
  if (resource === 'test-runs' && below.length === 1) return 'ingest';
  if (resource === 'test-runs' && id !== undefined && below.length === 3 && RUN_INGEST_ACTIONS.has(action!)) {
    return 'ingest';
  }
  if (resource === 'imports' && below.length >= 2) return 'ingest';
  if (resource === 'manual-runs' && below.length === 1) return 'manual-run-creation';
  if (resource === 'reports' && below.length === 1) return 'pdf-generation';
  return 'write';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Malformed percent-encoding: the router answers 400 for it; classify the raw text meanwhile.
    return segment;
  }
}
