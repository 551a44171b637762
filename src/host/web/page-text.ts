// A fetched page as text for a model: HTML becomes Markdown (turndown, the converter Claude Code's
// WebFetch uses), other text types are decoded as they are, and binary types are refused. This is
// model-controlled computation on hostile input (a page can nest ten thousand elements), so it runs
// only on the page thread (page-thread.ts), which the host kills when it overruns its time; a page
// nested too deep for the converter falls back to its text with the tags stripped.
import TurndownService from 'turndown';

/** What to convert. */
export interface PageInput {
  bytes: Uint8Array;
  contentType: string;
  /** Most characters returned. */
  maxChars: number;
}

/** The page as text, and how it was obtained. */
export interface PageText {
  text: string;
  /** `markdown` (from HTML), `text` (as sent), `stripped` (HTML too deep to convert: tags removed). */
  kind: 'markdown' | 'text' | 'stripped';
  truncated: boolean;
}

/** Element nesting beyond which the converter's recursion is not attempted. */
const MAX_DEPTH = 400;
/**
 * Elements beyond which the converter is not attempted: its DOM costs about a kilobyte per
 * element, so 5 MB of `<b>` would need gigabytes (and on Node 20 one array growing past the
 * thread's heap cap aborts the whole process, not just the thread).
 */
const MAX_ELEMENTS = 100_000;

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ld\+json|x-yaml|yaml|toml)|[a-z]+\/[a-z.+-]*\+(json|xml))/;

/** Converts a page. Throws an Error whose message says why a page cannot be shown. */
export function pageText(input: PageInput): PageText {
  const type = input.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const html =
    type === 'text/html' || type === 'application/xhtml+xml' || (type === '' && looksLikeHtml(input.bytes));
  if (!html && type !== '' && !TEXT_TYPES.test(type))
    throw new Error(`the response is ${type}, not text: WebFetch shows text and HTML pages only`);
  if (type === '' && !html && input.bytes.subarray(0, 1024).includes(0))
    throw new Error('the response is binary data, not text: WebFetch shows text and HTML pages only');
  const text = decode(input.bytes, charsetOf(input.contentType));
  if (!html) return cap(text, 'text', input.maxChars);
  const shape = elementShape(text);
  if (shape.depth > MAX_DEPTH || shape.elements > MAX_ELEMENTS)
    return cap(stripTags(text), 'stripped', input.maxChars);
  try {
    return cap(converter().turndown(text).trim(), 'markdown', input.maxChars);
  } catch {
    return cap(stripTags(text), 'stripped', input.maxChars);
  }
}

let service: TurndownService | undefined;
function converter(): TurndownService {
  if (service === undefined) {
    service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas']);
  }
  return service;
}

function cap(text: string, kind: PageText['kind'], max: number): PageText {
  return text.length <= max
    ? { text, kind, truncated: false }
    : { text: text.slice(0, max), kind, truncated: true };
}

function charsetOf(contentType: string): string {
  return /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1]?.toLowerCase() ?? 'utf-8';
}

function decode(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = new TextDecoder('utf-8').decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  return (
    head.startsWith('<!doctype html') ||
    head.startsWith('<html') ||
    head.startsWith('<head') ||
    head.startsWith('<body')
  );
}

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

/** The deepest element nesting and the number of elements, counted from tags alone (one pass). */
function elementShape(html: string): { depth: number; elements: number } {
  let depth = 0;
  let max = 0;
  let elements = 0;
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>/g)) {
    const name = (match[2] ?? '').toLowerCase();
    if (match[1] === '/') depth = Math.max(0, depth - 1);
    else {
      elements++;
      if (match[3] !== '/' && !VOID.has(name)) max = Math.max(max, ++depth);
    }
  }
  return { depth: max, elements };
}

/** Text with scripts, styles and tags removed and the common entities decoded. */
function stripTags(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(br|\/p|\/div|\/h\d|\/li|\/tr)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n\n')
    .trim();
}
