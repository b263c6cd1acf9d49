// run-code and the file-system endpoints (docs/api.md): fs/list, fs/read, fs/write, fs/exists,
// fs/info, DELETE fs, through the box's `files` and `shell` facets: box paths on a local Linux box
// (devices/linux/files.ts), device paths on an Android box (devices/android/files.ts).
import { rm } from 'node:fs/promises';
import { BoxflowError } from '../../../errors.js';
import { endpoints, kFsLimits, type EndpointName, type FsListQuery, type FsPathBody, type FsPathQuery, type RunCodeBody } from '../../../api/schemas.js';
import type { Answer, Call } from '../call.js';
import type { FilesFacet } from '../../devices/device.js';
import { facet } from '../../devices/index.js';
import { kMultipart, type MultipartBody } from '../multipart.js';
import { bodyOf } from '../requestChecks.js';
import type { BoxCall } from './boxRoute.js';
import { inTurn } from './commands.js';
import { readWriteParts } from './fsEntries.js';

export interface FileDeps {
  boxCall: BoxCall<Call>;
}

/** @fastify/multipart options for fs/write (app.ts): a `content` text part may be this long. */
export const kFsWriteParts = { limits: { fieldSize: kFsLimits.writeTextBytes } };

// ---------------------------------------------------------------- the handlers

export function createFileHandlers(deps: FileDeps) {
  const { boxCall } = deps;
  const fs = <T>(name: EndpointName, call: Call, work: (files: FilesFacet) => Promise<T>, wrap: (v: T) => unknown = (v) => v) =>
    boxCall(name, call, async (entry): Promise<Answer> => ({ status: 200, body: wrap(await work(facet(entry, 'files', name))) }));

  return {
    runCode: (call: Call) =>
      inTurn(boxCall, 'runCode', call, async (entry): Promise<Answer> => {
        const body = bodyOf(endpoints.runCode.body, call.body) as RunCodeBody;
        return { status: 200, body: await facet(entry, 'shell', 'runCode').runCode(body, call.signal, call.output) };
      }),
    listFiles: (call: Call) => fs('listFiles', call, (files) => files.list(call.query as FsListQuery)),
    readFile: (call: Call) => fs('readFile', call, (files) => files.read(call.query as FsPathQuery), (content) => ({ content })),
    fileInfo: (call: Call) => fs('fileInfo', call, (files) => files.info(call.query as FsPathQuery)),
    fileExists: (call: Call) => fs('fileExists', call, (files) => files.exists(bodyOf(endpoints.fileExists.body, call.body) as FsPathBody)),
    removeFile: (call: Call) => fs('removeFile', call, (files) => files.remove(bodyOf(endpoints.removeFile.body, call.body) as FsPathBody), (message) => ({ message })),
    writeFile: (call: Call) =>
      fs('writeFile', call, async (files) => {
        const parts = (call.body as Partial<MultipartBody> | undefined)?.[kMultipart];
        if (!parts) throw new BoxflowError('INVALID_REQUEST', 'send fs/write as multipart/form-data: a `path` text part, `content` (a text part or a file part) and optionally `workingDir`');
        let dir: string | undefined;
        try {
          return await files.write(await readWriteParts(parts, async () => (dir ??= await files.spoolDir())));
        } finally {
          if (dir) await rm(dir, { recursive: true, force: true });
        }
      }),
  } satisfies Partial<Record<EndpointName, (call: Call) => Promise<Answer>>>;
}
