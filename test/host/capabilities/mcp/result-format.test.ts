import { describe, expect, it } from 'vitest';
import { capText } from '../../../../src/shared/cap-text.js';
import { formatMcpResult, MAX_IMAGES } from '../../../../src/host/capabilities/mcp/result-format.js';

describe('MCP results as tool_result content', () => {
  it('joins text, keeps images, describes what the model cannot read', () => {
    const out = formatMcpResult(
      {
        isError: false,
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'mem://x', text: 'inline text' } },
          { type: 'resource', resource: { uri: 'mem://y', blob: 'AAAA', mimeType: 'application/zip' } },
          { type: 'hologram' },
        ],
      },
      10_000,
    );
    expect(out.images).toEqual([{ mediaType: 'image/png', data: 'AAAA' }]);
    expect(out.content.split('\n')).toEqual([
      'first',
      '[image (image/tiff, 3 bytes) not shown: a type the model cannot read]',
      '[audio (audio/wav, 3 bytes) not shown]',
      '[resource a.txt file:///a.txt]',
      '[resource mem://x]',
      'inline text',
      '[binary resource mem://y (application/zip, 3 bytes) not shown]',
      '[hologram content not shown]',
    ]);
    expect(out).toMatchObject({ isError: false, truncated: false });
  });

  it('keeps at most a few images, and none too large', () => {
    const many = Array.from({ length: MAX_IMAGES + 2 }, () => ({
      type: 'image',
      data: 'AA',
      mimeType: 'image/gif',
    }));
    const out = formatMcpResult(
      {
        isError: false,
        content: [...many, { type: 'image', data: 'A'.repeat(2_000_000), mimeType: 'image/png' }],
      },
      1000,
    );
    expect(out.images).toHaveLength(MAX_IMAGES);
    expect(out.content).toContain(`more than ${MAX_IMAGES} images`);
  });

  it('uses structured content when there is no text, and carries isError', () => {
    expect(formatMcpResult({ isError: false, content: [], structuredContent: { a: 1 } }, 100).content).toBe(
      '{\n  "a": 1\n}',
    );
    expect(
      formatMcpResult(
        { isError: false, content: [{ type: 'text', text: 't' }], structuredContent: { a: 1 } },
        100,
      ).content,
    ).toBe('t');
    expect(formatMcpResult({ isError: true, content: [] }, 100)).toEqual({
      content: '(the tool reported an error without a message)',
      isError: true,
      truncated: false,
    });
    expect(formatMcpResult({ isError: false, content: [] }, 100).content).toBe(
      '(the tool returned no content)',
    );
  });

  it('cuts text to the budget with a note that says how much and why', () => {
    const out = formatMcpResult(
      { isError: false, content: [{ type: 'text', text: 'x'.repeat(10_000) }] },
      500,
    );
    expect(out.truncated).toBe(true);
    expect(out.content.length).toBeLessThanOrEqual(500);
    expect(out.content).toMatch(
      /output truncated: \d+ of 10000 characters not shown; this MCP server's output budget is 500 characters \(maxOutputChars\)\]$/,
    );
  });

  it("is cut once, to the run's cap on a tool result when that is smaller, and the note says so", () => {
    const out = formatMcpResult(
      { isError: false, content: [{ type: 'text', text: 'x'.repeat(10_000) }] },
      5_000,
      800,
    );
    expect(out.content.length).toBeLessThanOrEqual(800);
    expect(out.content).toMatch(
      /output truncated: \d+ of 10000 characters not shown; a tool result is at most 800 characters\]$/,
    );
    // What the worker then does to it (cap at the same 800) changes nothing: one note, the true total.
    expect(capText(out.content, 800)).toBe(out.content);
    expect(out.content.match(/output truncated/g)).toHaveLength(1);
  });
});
