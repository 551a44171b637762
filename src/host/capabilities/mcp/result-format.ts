// An MCP tool result as tool_result content: text blocks joined, images kept (within limits) for
// the model to see, other content described in a line, structured content as JSON when the tool
// sent no text, `isError` carried over. The text is cut to the server's output budget with a note,
// here on the host, so an oversized result never crosses to the worker.
import type { McpCallResult, ToolImage } from '../../../shared/capabilities.js';
import { capText } from '../../../shared/cap-text.js';
import type { McpRawResult } from './session.js';

/** Images kept per result, and the largest one (base64 characters, about 750 KB of image). */
export const MAX_IMAGES = 3;
const MAX_IMAGE_CHARS = 1_000_000;

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function approxBytes(base64: string | undefined): string {
  return base64 === undefined ? 'unknown size' : `${Math.round((base64.length * 3) / 4)} bytes`;
}

/** One content block as text (or as an image pushed to `images`). */
function describeBlock(block: Record<string, unknown>, images: ToolImage[]): string | undefined {
  const type = str(block.type);
  if (type === 'text') return str(block.text) ?? '';
  const mime = str(block.mimeType) ?? 'unknown type';
  if (type === 'image') {
    const data = str(block.data);
    if (
      data !== undefined &&
      IMAGE_TYPES.has(mime) &&
      data.length <= MAX_IMAGE_CHARS &&
      images.length < MAX_IMAGES
    ) {
      images.push({ mediaType: mime as ToolImage['mediaType'], data });
      return undefined;
    }
    const why = !IMAGE_TYPES.has(mime)
      ? 'a type the model cannot read'
      : images.length >= MAX_IMAGES
        ? `more than ${MAX_IMAGES} images in one result`
        : 'too large';
    return `[image (${mime}, ${approxBytes(data)}) not shown: ${why}]`;
  }
  if (type === 'audio') return `[audio (${mime}, ${approxBytes(str(block.data))}) not shown]`;
  if (type === 'resource_link')
    return `[resource ${str(block.name) ?? ''} ${str(block.uri) ?? ''}${block.mimeType ? ` (${mime})` : ''}]`.replace(
      /\s+/g,
      ' ',
    );
  if (type === 'resource') {
    const resource = (block.resource ?? {}) as Record<string, unknown>;
    const uri = str(resource.uri) ?? '';
    const text = str(resource.text);
    if (text !== undefined) return `[resource ${uri}]\n${text}`;
    return `[binary resource ${uri} (${str(resource.mimeType) ?? 'unknown type'}, ${approxBytes(str(resource.blob))}) not shown]`;
  }
  return `[${type ?? 'unknown'} content not shown]`;
}

/**
 * The result as the model sees it, its text at most `budget` characters (the server's
 * `maxOutputChars`) and at most `runCap` (the run's cap on any tool result), with one note that
 * names whichever cut it.
 */
export function formatMcpResult(
  raw: McpRawResult,
  budget: number,
  runCap = Number.POSITIVE_INFINITY,
): McpCallResult {
  const images: ToolImage[] = [];
  const parts: string[] = [];
  for (const block of raw.content) {
    if (typeof block !== 'object' || block === null) continue;
    const text = describeBlock(block, images);
    if (text !== undefined) parts.push(text);
  }
  if (raw.structuredContent !== undefined && !parts.some((p) => p.trim() !== ''))
    parts.push(JSON.stringify(raw.structuredContent, null, 2) ?? '');
  let content = parts.join('\n');
  if (content.trim() === '' && images.length === 0)
    content = raw.isError
      ? '(the tool reported an error without a message)'
      : '(the tool returned no content)';
  const limit = Math.min(budget, runCap);
  const truncated = content.length > limit;
  const which =
    budget <= runCap
      ? `this MCP server's output budget is ${budget} characters (maxOutputChars)`
      : `a tool result is at most ${runCap} characters`;
  content = capText(
    content,
    limit,
    (dropped, total) => `\n... [output truncated: ${dropped} of ${total} characters not shown; ${which}]`,
  );
  const out: McpCallResult = { content, isError: raw.isError, truncated };
  if (images.length > 0) out.images = images;
  return out;
}
