// Folds the raw Messages API stream events of one message into normalized events: text deltas as
// they come, each tool call once its JSON input is complete, cumulative usage, and the final
// content. Pure (no I/O), so it is tested on recorded event sequences without a server.
import type { ReplyCaps } from '../../shared/run-spec.js';
import { emptyUsage, type Usage } from '../../shared/usage.js';
import { ReplyCounter } from './reply-cap.js';
import type { AssistantBlock, ModelStreamEvent, ModelStreamEventOf } from './stream-event.js';

/** A raw stream event, loosely typed: compatible servers do not always follow the spec to the letter. */
export interface RawStreamEvent {
  type: string;
  [key: string]: unknown;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;

interface OpenBlock {
  block: Rec;
  json: string;
  done: boolean;
}

/**
 * Accumulates one message. Feed every raw event to `push`; call `finish` after `message_stop`.
 * With `caps`, `push` throws `too_large` (reason `reply_too_large`) before it keeps more text or
 * tool input than they allow.
 */
export class MessageAccumulator {
  private readonly blocks: OpenBlock[] = [];
  private readonly counter: ReplyCounter;
  private usage: Usage = emptyUsage();
  private stopReason: string | undefined;
  private stopSequence: string | undefined;
  /** True once `message_stop` arrived: the message is complete. */
  stopped = false;

  constructor(caps?: ReplyCaps) {
    this.counter = new ReplyCounter(caps);
  }

  /** The message's usage so far. */
  get currentUsage(): Usage {
    return { ...this.usage };
  }

  /** Text of the message so far (all text blocks). */
  get text(): string {
    return this.blocks
      .map((b) => (b.block['type'] === 'text' && typeof b.block['text'] === 'string' ? b.block['text'] : ''))
      .join('');
  }

  /** Folds one raw event in; returns the normalized events it produces. */
  push(event: RawStreamEvent): ModelStreamEvent[] {
    switch (event.type) {
      case 'message_start': {
        const message = isRec(event['message']) ? event['message'] : {};
        return this.mergeUsage(message['usage']);
      }
      case 'content_block_start':
        return this.start(event);
      case 'content_block_delta':
        return this.delta(event);
      case 'content_block_stop': {
        const open = this.blocks[num(event['index']) ?? -1];
        return open === undefined ? [] : this.close(open);
      }
      case 'message_delta': {
        const delta = isRec(event['delta']) ? event['delta'] : {};
        if (typeof delta['stop_reason'] === 'string') this.stopReason = delta['stop_reason'];
        if (typeof delta['stop_sequence'] === 'string') this.stopSequence = delta['stop_sequence'];
        return this.mergeUsage(event['usage']);
      }
      case 'message_stop':
        this.stopped = true;
        return [];
      default:
        return [];
    }
  }

  /** Closes blocks left open (a stream cut at max_tokens) and returns their tool calls plus `message-end`. */
  finish(): ModelStreamEvent[] {
    const out: ModelStreamEvent[] = [];
    for (const open of this.blocks) if (!open.done) out.push(...this.close(open));
    const content = this.blocks
      .map((b) => finalBlock(b.block))
      .filter((b): b is AssistantBlock => b !== undefined);
    const end: ModelStreamEventOf<'message-end'> = {
      type: 'message-end',
      content,
      stopReason: this.stopReason ?? 'end_turn',
    };
    if (this.stopSequence !== undefined) end.stopSequence = this.stopSequence;
    out.push(end);
    return out;
  }

  private mergeUsage(raw: unknown): ModelStreamEvent[] {
    if (!isRec(raw)) return [];
    const next = { ...this.usage };
    for (const key of Object.keys(next) as (keyof Usage)[]) {
      const value = num(raw[key]);
      if (value !== undefined) next[key] = value;
    }
    this.usage = next;
    return [{ type: 'usage', usage: { ...next } }];
  }

  private start(event: RawStreamEvent): ModelStreamEvent[] {
    const index = num(event['index']);
    const block = isRec(event['content_block']) ? { ...event['content_block'] } : undefined;
    if (index === undefined || block === undefined || typeof block['type'] !== 'string') return [];
    if (block['type'] === 'tool_use' || block['type'] === 'server_tool_use') {
      const input = isRec(block['input']) ? block['input'] : {};
      block['input'] = input;
      const size = Object.keys(input).length === 0 ? 0 : JSON.stringify(input).length;
      this.counter.addToolInput(size);
    }
    const text = block['type'] === 'text' && typeof block['text'] === 'string' ? block['text'] : '';
    const thinking = typeof block['thinking'] === 'string' ? block['thinking'] : '';
    this.counter.addText(text.length + thinking.length);
    this.blocks[index] = { block, json: '', done: false };
    return text === '' ? [] : [{ type: 'text-delta', text }];
  }

  private delta(event: RawStreamEvent): ModelStreamEvent[] {
    const open = this.blocks[num(event['index']) ?? -1];
    const delta = isRec(event['delta']) ? event['delta'] : undefined;
    if (open === undefined || delta === undefined) return [];
    const b = open.block;
    const str = (key: string) => (typeof delta[key] === 'string' ? delta[key] : '');
    switch (delta['type']) {
      case 'text_delta': {
        const text = str('text');
        this.counter.addText(text.length);
        b['text'] = `${typeof b['text'] === 'string' ? b['text'] : ''}${text}`;
        return text === '' ? [] : [{ type: 'text-delta', text }];
      }
      case 'input_json_delta': {
        const json = str('partial_json');
        this.counter.addToolInput(json.length);
        open.json += json;
        return [];
      }
      case 'thinking_delta': {
        const thinking = str('thinking');
        this.counter.addText(thinking.length);
        b['thinking'] = `${typeof b['thinking'] === 'string' ? b['thinking'] : ''}${thinking}`;
        return [];
      }
      case 'signature_delta':
        b['signature'] = str('signature');
        return [];
      case 'citations_delta':
        this.counter.addText(JSON.stringify(delta['citation'] ?? null).length);
        b['citations'] = [...(Array.isArray(b['citations']) ? b['citations'] : []), delta['citation']];
        return [];
      default:
        return [];
    }
  }

  /** Marks a block complete; a tool_use block gets its parsed input and becomes a `tool-use` event. */
  private close(open: OpenBlock): ModelStreamEvent[] {
    if (open.done) return [];
    open.done = true;
    const b = open.block;
    if (b['type'] === 'server_tool_use' && open.json.trim() !== '') {
      const parsed = parseInput(open.json);
      if (parsed.input !== undefined) b['input'] = parsed.input;
    }
    if (b['type'] !== 'tool_use') return [];
    const parsed =
      open.json.trim() === '' ? { input: isRec(b['input']) ? b['input'] : {} } : parseInput(open.json);
    b['input'] = parsed.input ?? {};
    const call: ModelStreamEventOf<'tool-use'> = {
      type: 'tool-use',
      id: typeof b['id'] === 'string' ? b['id'] : '',
      name: typeof b['name'] === 'string' ? b['name'] : '',
      input: parsed.input ?? {},
    };
    if (parsed.error !== undefined) call.inputError = parsed.error;
    return [call];
  }
}

function parseInput(json: string): { input?: Rec; error?: string } {
  try {
    const value: unknown = JSON.parse(json);
    return isRec(value)
      ? { input: value }
      : { error: `the tool input is not a JSON object: ${json.slice(0, 200)}` };
  } catch {
    return {
      error: `the tool input is incomplete or malformed JSON (${json.length} chars): ${json.slice(0, 200)}`,
    };
  }
}

/** The block as it goes back to the API: empty text blocks are dropped (the API rejects them). */
function finalBlock(block: Rec): AssistantBlock | undefined {
  const type = block['type'];
  if (typeof type !== 'string') return undefined;
  if (type === 'text') {
    const text = typeof block['text'] === 'string' ? block['text'] : '';
    if (text === '') return undefined;
    const citations = block['citations'];
    return Array.isArray(citations) && citations.length > 0 ? { type, text, citations } : { type, text };
  }
  if (type === 'tool_use') return { type, id: block['id'], name: block['name'], input: block['input'] };
  return { ...block, type };
}
