/**
 * Writes the page to S3: status.json first, index.html last. Each PutObject is all-or-nothing (S3 never
 * serves part of an object) and the page is whole in itself (it fetches nothing), so no reader ever sees
 * half a page. The order is for the pair: a page says when it was built, and with the HTML last its JSON
 * is never older than it; when the JSON cannot be written even after the SDK's retries, the run stops
 * before the HTML and the previous page stays up, consistent with its own time, until the next run.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** Object keys, fixed: CloudFront's default root object and the JSON link on the page name them. */
export const PAGE_KEY = 'index.html';
export const JSON_KEY = 'status.json';
/**
 * A minute in browsers and CloudFront: the page changes every few minutes, and a minute's staleness costs
 * nobody anything while it keeps CloudFront answering from its cache for everyone in between.
 */
export const CACHE_CONTROL = 'public, max-age=60';
export const CONTENT_TYPES = { html: 'text/html; charset=utf-8', json: 'application/json; charset=utf-8' } as const;

export interface StatusObjects {
  readonly html: string;
  readonly json: string;
}

export async function writeStatus(s3: S3Client, bucket: string, objects: StatusObjects): Promise<{ keys: readonly string[] }> {
  const put = (key: string, body: string, contentType: string) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType, CacheControl: CACHE_CONTROL }));
  await put(JSON_KEY, objects.json, CONTENT_TYPES.json);
  await put(PAGE_KEY, objects.html, CONTENT_TYPES.html);
  return { keys: [JSON_KEY, PAGE_KEY] };
}
