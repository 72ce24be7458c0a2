/**
 * The case routes: the list of spec §4.3, create (API.md), get with history, the PATCH of spec §4.3, the
 * change history, and attachments (multipart, streamed into the blob store).
 */
import Busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { Request, RequestHandler } from 'express';
import {
  CreateManualCaseRequest,
  ManualCasePath,
  ManualCasesQuery,
  PageQuery,
  paginationOf,
  UpdateManualCaseRequest,
  type ManualTestCaseDetail,
} from '@verdict/contracts';
import {
  AppError,
  NotFoundError,
  newId,
  parseBody,
  parseParams,
  parseQuery,
  PayloadTooLargeError,
  sendData,
  sendList,
  storableText,
  ValidationError,
  type ApiRoute,
} from '@verdict/platform';
import {
  caseDetail,
  caseHistory,
  caseIdOf,
  listCases,
  suitePath,
  type ReadStore,
} from '../projections/queries';
import { actorOf, contextOf, projectOf, routesOf, type RouteDeps } from '../shared/http';
import { caseStream } from './case';
import { caseDecider } from './decide';

async function requireCase(read: ReadStore, projectId: string, ref: string): Promise<string> {
  const caseId = await caseIdOf(read, projectId, ref);
  if (caseId === null) throw new NotFoundError('Manual test case not found');
  return caseId;
}

async function detailOf(read: ReadStore, projectId: string, caseId: string): Promise<ManualTestCaseDetail> {
  const detail = await caseDetail(read, projectId, caseId);
  if (!detail) throw new NotFoundError('Manual test case not found');
  return detail;
}

async function checkSuite(read: ReadStore, projectId: string, suiteId: string | null | undefined) {
  if (suiteId === undefined || suiteId === null) return;
  if ((await suitePath(read, projectId, suiteId)).length === 0) {
    throw new ValidationError('suiteId: no suite with this id in the project');
  }
}

interface Upload {
  fields: Record<string, string>;
  stored: { size: number; contentType: string; fileName: string } | null;
}

/** Streams the `file` part into the blob store under `key` (never into memory); other parts are fields. */
function receiveUpload(req: Request, deps: RouteDeps, key: string): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      // UTF-8 file names as browsers and curl send them (busboy reads them as Latin-1 by default).
      busboy = Busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fields: 10, fieldSize: 4096 },
      });
    } catch {
      reject(new ValidationError('Expected a multipart/form-data body with a `file` part'));
      return;
    }
    const fields: Record<string, string> = {};
    let storing: Promise<{ size: number; contentType: string; fileName: string }> | null = null;
    busboy.on('field', (name, value) => {
      // As in JSON bodies: a NUL or a lone surrogate becomes U+FFFD (PostgreSQL stores no NUL in text).
      fields[name] = storableText(value);
    });
    busboy.on('file', (name, stream: Readable, info) => {
      if (name !== 'file' || storing) {
        stream.resume();
        return;
      }
      const contentType = info.mimeType || 'application/octet-stream';
      const fileName = info.filename || 'attachment';
      storing = deps.blobs
        .put(key, stream, { contentType, maxBytes: deps.attachmentMaxBytes, filename: fileName })
        .then((meta) => ({ size: meta.size, contentType, fileName }));
      storing.catch(() => stream.resume());
    });
    busboy.on('error', (error) => reject(new ValidationError(`Malformed multipart body: ${String(error)}`)));
    busboy.on('close', () => {
      if (!storing) resolve({ fields, stored: null });
      else storing.then((stored) => resolve({ fields, stored }), reject);
    });
    req.pipe(busboy);
  });
}

/** A file name safe in a blob key and a download header: letters, digits, dot, dash, underscore. */
const safeFileName = (name: string) =>
  name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 120) || 'attachment';

export function caseRoutes(deps: RouteDeps): ApiRoute[] {
  const { read, writes, clock } = deps;
  const handlers: Record<string, RequestHandler[]> = {
    'get /{projectId}/manual-tests': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const query = parseQuery(ManualCasesQuery, req);
        const { items, total } = await listCases(read, projectId, query);
        sendList(res, items, paginationOf(query.page, query.limit, total));
      },
    ],
    'post /{projectId}/manual-test-cases': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const request = parseBody(CreateManualCaseRequest, req);
        await checkSuite(read, projectId, request.suiteId);
        const caseId = newId();
        const number = await writes.allocate('case', projectId, caseId);
        await writes.run(
          caseStream(caseId),
          caseDecider,
          {
            type: 'createCase',
            caseId,
            projectId,
            number,
            request,
            commentIds: (request.comments ?? []).map(() => newId()),
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        res.location(`${req.baseUrl}/${projectId}/manual-test-cases/${caseId}`);
        sendData(res, await detailOf(read, projectId, caseId), 201);
      },
    ],
    'get /{projectId}/manual-test-cases/{caseId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { caseId: ref } = parseParams(ManualCasePath, req);
        sendData(res, await detailOf(read, projectId, await requireCase(read, projectId, ref)));
      },
    ],
    'patch /{projectId}/manual-test-cases/{caseId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { caseId: ref } = parseParams(ManualCasePath, req);
        const request = parseBody(UpdateManualCaseRequest, req);
        const caseId = await requireCase(read, projectId, ref);
        await checkSuite(read, projectId, request.suiteId);
        await writes.run(
          caseStream(caseId),
          caseDecider,
          {
            type: 'reviseCase',
            request,
            commentIds: (request.comments ?? []).map(() => newId()),
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await detailOf(read, projectId, caseId));
      },
    ],
    'get /{projectId}/manual-test-cases/{caseId}/history': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { caseId: ref } = parseParams(ManualCasePath, req);
        const { page, limit } = parseQuery(PageQuery, req);
        const caseId = await requireCase(read, projectId, ref);
        const { items, total } = await caseHistory(read, caseId, page, limit);
        sendList(res, items, paginationOf(page, limit, total));
      },
    ],
    'post /{projectId}/manual-test-cases/{caseId}/attachments': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { caseId: ref } = parseParams(ManualCasePath, req);
        const caseId = await requireCase(read, projectId, ref);
        const attachmentId = newId();
        const key = `manual/${projectId}/${caseId}/${attachmentId}`;
        let upload: Upload;
        try {
          upload = await receiveUpload(req, deps, key);
        } catch (error) {
          if (error instanceof PayloadTooLargeError) {
            throw new PayloadTooLargeError(`file: larger than the limit of ${deps.attachmentMaxBytes} bytes`);
          }
          throw error;
        }
        if (!upload.stored) throw new ValidationError('file: is required (a multipart part named `file`)');
        const stepRef = upload.fields.stepRef?.trim() || null;
        try {
          if (stepRef !== null && stepRef.length > 100) {
            throw new ValidationError('stepRef: must be at most 100 characters');
          }
          await writes.run(
            caseStream(caseId),
            caseDecider,
            {
              type: 'addAttachment',
              attachment: {
                id: attachmentId,
                fileName: safeFileName(upload.stored.fileName),
                originalFileName: upload.stored.fileName.slice(0, 255),
                fileSize: upload.stored.size,
                mimeType: upload.stored.contentType,
                blobKey: key,
                stepRef,
              },
              by: actorOf(res),
              now: clock.now(),
            },
            contextOf(req, projectId),
          );
        } catch (error) {
          // The blob is only worth keeping if the case recorded it.
          if (error instanceof AppError) await deps.blobs.delete(key);
          throw error;
        }
        const detail = await detailOf(read, projectId, caseId);
        const attachment = detail.attachments.find((a) => a._id === attachmentId);
        sendData(res, attachment);
      },
    ],
  };
  return routesOf(['/{projectId}/manual-tests', '/{projectId}/manual-test-cases'], handlers);
}
