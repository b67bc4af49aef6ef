import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobRange, BlobStore, StoredBlob } from '../blobs/blob-store.js';
import {
  assertOwnMarker,
  type BlobStoreOwner,
  storeMarkerName,
  storeMarkerText,
} from '../blobs/store-marker.js';
import { assertUnmarkedClaimable } from '../blobs/unmarked-claim.js';
import {
  BlobNotFoundError,
  InvalidOutputEventError,
  InvalidStoreOptionError,
  OutputRangeError,
  StorageFailureError,
  StoreConnectionError,
} from '../errors.js';
import {
  describeS3Error,
  isS3NotFound,
  isS3PreconditionFailed,
  isS3RangeError,
  s3ConnectionProblem,
} from './s3-errors.js';

/**
 * Options of {@link S3BlobStore}.
 *
 * @example
 * ```ts
 * const options: S3BlobStoreOptions = {
 *   bucket: 'wharf', prefix: 'outputs', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true,
 * };
 * ```
 */
export interface S3BlobStoreOptions {
  readonly bucket: string;
  /** Key prefix inside the bucket (no leading or trailing `/`), default none. */
  readonly prefix?: string;
  /** An S3-compatible server's URL (MinIO, versitygw…); default AWS S3 for `region`. */
  readonly endpoint?: string;
  /** Default `us-east-1`. */
  readonly region?: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key`; most self-hosted servers need it. */
  readonly forcePathStyle?: boolean;
  /** Default: the AWS SDK's provider chain (`AWS_ACCESS_KEY_ID`, profiles, instance roles…). */
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  /** Bodies of at least this size go up as a multipart upload of such parts; default 8 MiB, minimum 5 MiB. */
  readonly partSizeBytes?: number;
  /** Parts uploaded at once by one multipart upload, default 4. */
  readonly queueSize?: number;
}

const shaPattern = /^[0-9a-f]{64}$/;

function validRange(range: BlobRange): boolean {
  return (
    Number.isSafeInteger(range.start) &&
    Number.isSafeInteger(range.end) &&
    0 <= range.start &&
    range.start <= range.end
  );
}
const minimumPartSize = 5 * 2 ** 20;

/**
 * A {@link BlobStore} in an S3 bucket (AWS S3 or any S3-compatible server), keyed
 * `<prefix>/ab/<sha256>`. `putFile` skips bytes already present (HEAD), sends a body below
 * the part size as one `PutObject` and a larger one as a multipart upload of parallel parts;
 * an upload becomes visible only when complete, so no reader ever sees half a body.
 * `open` streams a range with `Range: bytes=start-(end-1)`. S3 failures become
 * {@link StorageFailureError}s naming the bucket and key; a missing body a {@link BlobNotFoundError}.
 *
 * @example
 * ```ts
 * import { S3BlobStore } from '@wharf/output-store/s3';
 *
 * const blobs = new S3BlobStore({ bucket: 'wharf', prefix: 'outputs', region: 'eu-west-1' });
 * const stream = await blobs.open(sha256, { start: 0, end: 1024 });
 * ```
 */
export class S3BlobStore implements BlobStore {
  readonly location: string;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #partSize: number;
  readonly #queueSize: number;
  /** Where the bucket is, for messages: its location, and a custom endpoint. */
  readonly #server: string;
  /** Uploads in flight in this process, so concurrent puts of one address upload it once. */
  readonly #uploads = new Map<string, Promise<void>>();
  #closed = false;

  constructor(options: S3BlobStoreOptions) {
    if (options.bucket === '') throw new InvalidStoreOptionError('bucket', 'must not be empty');
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    const partSize = options.partSizeBytes ?? 8 * 2 ** 20;
    if (!Number.isSafeInteger(partSize) || partSize < minimumPartSize)
      throw new InvalidStoreOptionError('partSizeBytes', `must be an integer of at least ${minimumPartSize}`);
    const queueSize = options.queueSize ?? 4;
    if (!Number.isSafeInteger(queueSize) || queueSize < 1)
      throw new InvalidStoreOptionError('queueSize', 'must be a positive integer');
    this.#bucket = options.bucket;
    this.#prefix = prefix === '' ? '' : `${prefix}/`;
    this.#partSize = partSize;
    this.#queueSize = queueSize;
    this.location = `s3://${options.bucket}${prefix === '' ? '' : `/${prefix}`}`;
    this.#server = options.endpoint === undefined ? this.location : `${this.location} at ${options.endpoint}`;
    this.#client = new S3Client({
      region: options.region ?? 'us-east-1',
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.forcePathStyle === undefined ? {} : { forcePathStyle: options.forcePathStyle }),
      ...(options.credentials === undefined ? {} : { credentials: { ...options.credentials } }),
    });
  }

  /** The object key of an address: `<prefix>/ab/<sha256>`. */
  keyOf(sha256: string): string {
    if (!shaPattern.test(sha256))
      throw new InvalidOutputEventError('sha256', 'must be 64 lowercase hex digits');
    return `${this.#prefix}${sha256.slice(0, 2)}/${sha256}`;
  }

  async putFile(sha256: string, path: string, sizeBytes: number): Promise<void> {
    try {
      this.#assertOpen();
      const key = this.keyOf(sha256);
      const actual = (await stat(path)).size;
      if (actual !== sizeBytes)
        throw new InvalidOutputEventError('sizeBytes', `is ${sizeBytes} but ${path} holds ${actual} bytes`);
      let upload = this.#uploads.get(sha256);
      if (upload === undefined) {
        upload = this.#upload(key, path, sizeBytes).finally(() => this.#uploads.delete(sha256));
        this.#uploads.set(sha256, upload);
      }
      await upload;
    } finally {
      await rm(path, { force: true });
    }
  }

  async #upload(key: string, path: string, sizeBytes: number): Promise<void> {
    if (await this.#exists(key)) return;
    try {
      if (sizeBytes < this.#partSize) {
        await this.#client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: key,
            Body: createReadStream(path),
            ContentLength: sizeBytes,
          }),
        );
        return;
      }
      const upload = new Upload({
        client: this.#client,
        params: { Bucket: this.#bucket, Key: key, Body: createReadStream(path, { highWaterMark: 1 << 20 }) },
        partSize: this.#partSize,
        queueSize: this.#queueSize,
        leavePartsOnError: false,
      });
      await upload.done();
    } catch (error) {
      throw this.#failure('upload', key, error);
    }
  }

  async open(sha256: string, range?: BlobRange): Promise<Readable> {
    this.#assertOpen();
    const key = this.keyOf(sha256);
    if (range !== undefined && (range.start === range.end || !validRange(range))) {
      const size = await this.#size(key);
      if (size === undefined) throw new BlobNotFoundError(sha256, this.location);
      if (!validRange(range) || range.end > size) throw new OutputRangeError(range, size);
      return Readable.from([]);
    }
    let response: GetObjectCommandOutput;
    try {
      response = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end - 1}` }),
        }),
      );
    } catch (error) {
      if (isS3NotFound(error)) throw new BlobNotFoundError(sha256, this.location);
      if (range !== undefined && isS3RangeError(error)) {
        const size = await this.#size(key);
        if (size === undefined) throw new BlobNotFoundError(sha256, this.location);
        throw new OutputRangeError(range, size);
      }
      throw this.#failure('read', key, error);
    }
    const body = response.Body;
    if (!(body instanceof Readable))
      throw this.#failure('read', key, new Error('the body is not a Node stream'));
    // S3 clips a range that runs past the end; the contract refuses it instead.
    const total = Number(/\/(\d+)$/.exec(response.ContentRange ?? '')?.[1] ?? Number.NaN);
    if (range !== undefined && Number.isSafeInteger(total) && range.end > total) {
      body.destroy();
      throw new OutputRangeError(range, total);
    }
    return body;
  }

  async has(sha256: string): Promise<boolean> {
    this.#assertOpen();
    return this.#exists(this.keyOf(sha256));
  }

  async remove(sha256: string): Promise<void> {
    this.#assertOpen();
    const key = this.keyOf(sha256);
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (error) {
      if (isS3NotFound(error)) return;
      throw this.#failure('delete', key, error);
    }
  }

  async *list(): AsyncIterable<StoredBlob> {
    this.#assertOpen();
    const keyPattern = /^([0-9a-f]{2})\/([0-9a-f]{64})$/;
    let continuationToken: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: this.#prefix,
            ...(continuationToken === undefined ? {} : { ContinuationToken: continuationToken }),
          }),
        );
      } catch (error) {
        throw this.#failure('list', `${this.#prefix}*`, error);
      }
      for (const object of page.Contents ?? []) {
        const match = keyPattern.exec((object.Key ?? '').slice(this.#prefix.length));
        if (match?.[2]?.startsWith(match[1] ?? '-'))
          yield {
            sha256: match[2],
            sizeBytes: object.Size ?? 0,
            modifiedMs: object.LastModified?.getTime() ?? Date.now(),
          };
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
  }

  /**
   * Claims the prefix with the object `<prefix>/wharf-store.json`, created with
   * `If-None-Match: *`, so of two stores claiming a fresh prefix at once exactly one wins and
   * the other reads its marker and is refused. Reads it otherwise: a missing bucket or a wrong
   * key fails here, naming the bucket and key. A prefix without a marker that holds bodies is
   * claimed only by the store that proves them its own (`owner.ownBodies`), else refused with
   * `BlobStoreUnmarkedError`.
   */
  async claim(owner: BlobStoreOwner): Promise<void> {
    this.#assertOpen();
    const key = `${this.#prefix}${storeMarkerName}`;
    try {
      await this.#claim(key, owner);
    } catch (error) {
      const problem = s3ConnectionProblem(StorageFailureError.isInstance(error) ? error.cause : error);
      if (problem === undefined) throw error;
      const detail =
        problem === 'missing'
          ? `the bucket ${this.#bucket} does not exist`
          : problem === 'credentials'
            ? 'the server refused the AWS credentials'
            : 'no server answers';
      throw new StoreConnectionError(
        this.#server,
        problem,
        `${detail} (${describeS3Error(StorageFailureError.isInstance(error) ? error.cause : error)})`,
        { cause: error },
      );
    }
  }

  async #claim(key: string, owner: BlobStoreOwner): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const text = await this.#readText(key);
      if (text !== undefined) {
        assertOwnMarker(text, owner, this.location);
        return;
      }
      await assertUnmarkedClaimable(
        this,
        owner,
        this.location,
        async () => (await this.#readText(key)) !== undefined,
      );
      try {
        await this.#client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: key,
            Body: storeMarkerText(owner),
            ContentType: 'application/json',
            IfNoneMatch: '*',
          }),
        );
        return;
      } catch (error) {
        // Another store's claim got there first: read whose it is.
        if (!isS3PreconditionFailed(error)) throw this.#failure('claim', key, error);
      }
    }
    throw this.#failure('claim', key, new Error('the marker kept changing'));
  }

  async #readText(key: string): Promise<string | undefined> {
    try {
      const response = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      return (await response.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if (isS3NotFound(error)) return undefined;
      throw this.#failure('read', key, error);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled(this.#uploads.values());
    this.#client.destroy();
  }

  async #exists(key: string): Promise<boolean> {
    return (await this.#size(key)) !== undefined;
  }

  /** The object's size, or undefined when it is absent. */
  async #size(key: string): Promise<number | undefined> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isS3NotFound(error)) return undefined;
      throw this.#failure('inspect', key, error);
    }
  }

  #failure(action: string, key: string, error: unknown): StorageFailureError {
    if (StorageFailureError.isInstance(error)) return error;
    // A server that does not answer is named (`cannot use s3://b/p at http://host: no server
    // answers (…) — cannot read <key>`): what an operator must mend, not a socket error alone.
    if (s3ConnectionProblem(error) === 'unreachable')
      return new StoreConnectionError(
        this.#server,
        'unreachable',
        `no server answers (${describeS3Error(error)}) — cannot ${action} s3://${this.#bucket}/${key}`,
        { cause: error },
      );
    return new StorageFailureError(
      `cannot ${action} s3://${this.#bucket}/${key}: ${describeS3Error(error)}`,
      { cause: error },
    );
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageFailureError(`the blob store ${this.location} is closed`);
  }
}
