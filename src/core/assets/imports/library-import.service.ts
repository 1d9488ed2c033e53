import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { operatorActor, requireTeamMember } from '../../access/operator-scopes.ts';
import { requireTeam } from '../../access/require-team.ts';
import type { Actor, UnitOfWork } from '../../platform/ctx.ts';
import { DomainError, invalid } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { extensionOf, fileNameOf, normalizeLink, normalizeTags } from '../files/file-rules.ts';
import {
  ImportDirectoryInput,
  type ImportedDirectory,
  type ImportedFile,
  type ImportFileInput as ImportFileBody,
  ImportFileInput,
} from '../files/library.schemas.ts';
import { libraryEvents } from '../files/library-events.ts';
import { ensureFolderPath, parseFolderPath } from '../folders/folders.ts';
import { pinStoredBytes } from '../recycle-bin/stored-bytes.ts';
import type { PaletteColour } from '../search/colour.ts';
import { paletteForImport } from '../search/palettes.ts';
import { storePalette } from '../search/stored-object-colours.queries.ts';
import type { Storage } from '../storage/storage.ts';
import { walkDirectory } from './directory-walk.ts';
import { ensureStoredObject, insertImportedFile, tagImportedFile } from './imports.queries.ts';
import { type ContentFacts, probeFile } from './probe.ts';

const checkImportFile = compileInput(ImportFileInput);
const checkImportDirectory = compileInput(ImportDirectoryInput);

/** Told after the tree is read (done 0) and after each file, so a caller can show progress. */
export type ImportProgress = (done: number, total: number) => void;

/** One line for a per-file failure: the code, the message and the fields at fault. */
function describeFailure(e: unknown): string {
  if (!(e instanceof DomainError)) return (e as Error).message ?? String(e);
  const fields = (e.details ?? []).map((d) => `${d.field} ${d.message}`).join('; ');
  return fields ? `${e.code}: ${e.message} (${fields})` : `${e.code}: ${e.message}`;
}

/** Spec 2.6 `source`: 1 web, 2 upload, 3 copy; an operator import is an upload. */
export const SOURCE_UPLOAD = 2;

/** Content-addressed key: identical bytes are stored once, whoever imports them. */
export function objectKey(sha256: string): string {
  return `objects/${sha256.slice(0, 2)}/${sha256}`;
}

/** The path to import must name a regular file (validation_failed on `field` otherwise). */
export async function requireRegularFile(path: string, field: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info) throw invalid(field, 'no such file');
  if (!info.isFile()) throw invalid(field, 'is not a regular file');
}

/** Fails the copy (before the rename that publishes it) if the bytes differ from the ones probed. */
function verifyingHash(expected: string): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const actual = hash.digest('hex');
      done(actual === expected ? null : new DomainError('validation_failed', 'The file changed while it was being imported; import it again'));
    },
  });
}

/** A validated single-file import whose bytes are stored, ready to place (now, or when a pending inbound is confirmed). */
export interface PlacementPlan {
  teamId: number;
  segments: string[];
  name: string;
  tags: string[];
  description: string | null;
  score: number | null;
  link: string | null;
  userId: number | null;
  facts: ContentFacts;
  /** Dominant colours for colour search (docs/search.md); [] for non-images. */
  palette: PaletteColour[];
  /** The file the bytes came from, to store them again if a permanent delete took them meanwhile; null for a held plan. */
  sourcePath: string | null;
  /** Stores the bytes again when they are not a file's (an upload's stored pieces); null otherwise. */
  restore: (() => Promise<void>) | null;
}

/** An operator import acts for the member it names (--user), else for the operator's CLI. */
export function importActor(plan: Pick<PlacementPlan, 'teamId' | 'userId'>): Actor {
  return operatorActor(plan.teamId, plan.userId, 'asset-import');
}

/** Operator imports into a team's library (CONTRACT.md `asset import`). */
export class LibraryImportService {
  private readonly storage: Storage;

  constructor(storage: Storage) {
    this.storage = storage;
  }

  /**
   * `asset import --file`: stores the bytes once (content-addressed), records what the bytes are
   * (MIME by content, dimensions, duration), and places them at a path of the team's library,
   * creating folders as needed. Returns the file-path ID, the stored-object id and the folder ids.
   */
  async importFile(op: UnitOfWork, input: unknown): Promise<ImportedFile> {
    const plan = await this.prepareFile(op, input);
    return inTransaction(op, async (tx) => {
      const placed = await this.place(tx, plan);
      await libraryEvents.imported({ em: tx.em, teamId: plan.teamId, actor: importActor(plan) }, placed.id);
      return placed;
    });
  }

  /**
   * Everything of `importFile` before the placement: validates the input, reads the bytes (MIME by
   * content, dimensions, duration, palette) and stores them (content-addressed). Pending inbound
   * (pending-inbound.service.ts) holds the plan and places it when it is confirmed.
   */
  async prepareFile(op: UnitOfWork, input: unknown): Promise<PlacementPlan> {
    const body = checkImportFile(input);
    const checked = await this.checkPlacement(op, body, () => requireRegularFile(body.file, 'file'));
    const facts = await probeFile(body.file);
    const palette = await paletteForImport(body.file, facts);
    await this.storeBytes(body.file, facts.sha256);
    return { ...checked, facts, palette, sourcePath: body.file, restore: null };
  }

  /**
   * `prepareFile` for bytes already stored under their content key and probed (an upload: its
   * pieces were placed by key, uploads.service.ts): the same rules for the rest of the input.
   * `input.file` only names the file when `name` does not. `restore` stores the bytes again if a
   * permanent delete takes them before the placement commits.
   */
  async prepareStored(
    op: UnitOfWork,
    input: unknown,
    stored: { facts: ContentFacts; palette: PaletteColour[]; restore: () => Promise<void> },
  ): Promise<PlacementPlan> {
    const checked = await this.checkPlacement(op, checkImportFile(input));
    return { ...checked, facts: stored.facts, palette: stored.palette, sourcePath: null, restore: stored.restore };
  }

  /** The input's rules that need no bytes: folder path, tags, link, name, (`fileCheck`,) team and member. */
  private async checkPlacement(op: UnitOfWork, body: ImportFileBody, fileCheck: () => Promise<void> = async () => {}) {
    const segments = parseFolderPath(body.folder);
    const tags = normalizeTags(body.tags);
    const link = normalizeLink(body.link);
    const name = fileNameOf(body.name, body.file);
    await fileCheck();
    await requireTeam(op, body.team);
    const userId = await requireTeamMember(op, body.team, body.user);
    return { teamId: body.team, segments, name, tags, description: body.description ?? null, score: body.score ?? null, link, userId };
  }

  /**
   * `asset import --dir`: mirrors the directory tree under `folder` (empty directories included)
   * and imports every regular file, each in its own transaction; a failing file or directory is
   * reported in `failed` with its relative path and the import goes on.
   */
  async importDirectory(op: UnitOfWork, input: unknown, onProgress: ImportProgress = () => {}): Promise<ImportedDirectory> {
    const { done, failed } = await this.eachFileOfDirectory(op, input, onProgress, { mirrorFolders: true }, (file) => this.importFile(op, file));
    return { imported: done.length, failed };
  }

  /**
   * The walk of `asset import --dir`: each regular file's single-file input (its folder mirrors its
   * directory under `folder`) is handed to `each`; a failing file is reported in `failed` and the
   * walk goes on. `mirrorFolders` also creates every directory's folder, empty ones included.
   */
  async eachFileOfDirectory<T>(
    op: UnitOfWork,
    input: unknown,
    onProgress: ImportProgress,
    options: { mirrorFolders: boolean },
    each: (file: { team: number; file: string; folder: string }) => Promise<T>,
  ): Promise<{ done: T[]; failed: ImportedDirectory['failed'] }> {
    const body = checkImportDirectory(input);
    const base = parseFolderPath(body.folder);
    const info = await stat(body.dir).catch(() => null);
    if (!info) throw invalid('dir', 'no such directory');
    if (!info.isDirectory()) throw invalid('dir', 'is not a directory');
    await requireTeam(op, body.team);
    const tree = await walkDirectory(body.dir);
    const failed = [...tree.skipped];
    const folderOf = (relativeDir: string) => `/${[...base, ...(relativeDir ? relativeDir.split('/') : [])].join('/')}`;
    if (options.mirrorFolders) await this.mirrorFolders(op, body.team, base, tree.directories, folderOf, failed);
    const done: T[] = [];
    onProgress(0, tree.files.length);
    for (const [index, path] of tree.files.entries()) {
      const slash = path.lastIndexOf('/');
      try {
        done.push(await each({ team: body.team, file: join(body.dir, path), folder: folderOf(slash < 0 ? '' : path.slice(0, slash)) }));
      } catch (e) {
        failed.push({ path, error: describeFailure(e) });
      }
      onProgress(index + 1, tree.files.length);
    }
    return { done, failed };
  }

  private async mirrorFolders(
    op: UnitOfWork,
    teamId: number,
    base: string[],
    directories: string[],
    folderOf: (relativeDir: string) => string,
    failed: ImportedDirectory['failed'],
  ): Promise<void> {
    const wanted = base.length > 0 ? ['', ...directories] : directories;
    for (const directory of wanted) {
      try {
        const segments = parseFolderPath(folderOf(directory));
        await inTransaction(op, (tx) => ensureFolderPath(tx, teamId, segments, null));
      } catch (e) {
        failed.push({ path: `${directory || '.'}/`, error: describeFailure(e) });
      }
    }
  }

  /** Copies the file into storage unless those bytes are already there; the copy is published atomically. */
  private async storeBytes(path: string, sha256: string): Promise<void> {
    const key = objectKey(sha256);
    if (await this.storage.exists(key)) return;
    await this.storage.putStream(key, createReadStream(path).pipe(verifyingHash(sha256)));
  }

  /**
   * In the placing transaction: the plan's bytes are in storage and stay there (stored-bytes.ts);
   * bytes a permanent delete removed after `prepareFile` are written again from the source.
   */
  async pinBytes(tx: UnitOfWork, plan: PlacementPlan): Promise<void> {
    const { sourcePath } = plan;
    await pinStoredBytes(
      tx,
      this.storage,
      objectKey(plan.facts.sha256),
      plan.restore ?? (sourcePath === null ? undefined : () => this.storeBytes(sourcePath, plan.facts.sha256)),
    );
  }

  /** Places a prepared file in the caller's transaction (folders, stored object, palette, file, tags); writes no event. */
  async place(tx: UnitOfWork, plan: PlacementPlan): Promise<ImportedFile> {
    const { teamId, facts, userId } = plan;
    await this.pinBytes(tx, plan);
    const folder = await ensureFolderPath(tx, teamId, plan.segments, userId);
    const objectId = await ensureStoredObject(tx, teamId, facts, objectKey(facts.sha256), userId);
    await storePalette(tx, teamId, objectId, plan.palette);
    const fileId = await insertImportedFile(tx, {
      teamId,
      folderId: folder.folderId,
      objectId,
      name: plan.name,
      extension: extensionOf(plan.name, facts.extension),
      facts,
      description: plan.description,
      score: plan.score,
      link: plan.link,
      source: SOURCE_UPLOAD,
      userId,
    });
    await tagImportedFile(tx, teamId, fileId, plan.tags);
    return { id: fileId, assetId: objectId, folderIds: folder.folderIds };
  }
}
