// bench/chat's model server, in a process of its own so its work stays off the chat's event loop:
// a lead that fans out to N streamers, each streaming a long reply in small, spaced chunks.
// Prints its URL on the first line and stops when its standard input ends.
import {
  startFakeAnthropic,
  systemText,
  textReply,
  toolUseReply,
} from '../../test/support/fake-anthropic.js';

const STREAM_CHUNKS = Number(process.argv[2] ?? 400);
const CHUNK_DELAY_MS = Number(process.argv[3] ?? 25);
const WORDS =
  'the runtime streams this reply in small pieces so that the chat has something to draw while you type'.split(
    ' ',
  );

const server = await startFakeAnthropic({
  responder: (req) => {
    const last = req.body.messages.at(-1)?.content;
    // A lead's new prompt (each chat turn resumes the same conversation) fans out; results end it.
    const prompt = typeof last === 'string' ? last : undefined;
    if (systemText(req.body).startsWith('[lead]')) {
      const n = Number(/fan out (\d+)/.exec(prompt ?? '')?.[1] ?? 16);
      return prompt !== undefined
        ? toolUseReply(
            Array.from({ length: n }, (_, i) => ({
              name: 'Task',
              input: { description: `stream ${i}`, prompt: `stream ${i}`, subagent_type: 'streamer' },
            })),
          )
        : textReply('all streams done');
    }
    const body = Array.from({ length: STREAM_CHUNKS * 3 }, (_, i) => WORDS[i % WORDS.length]).join(' ');
    return textReply(body, { chunks: STREAM_CHUNKS, eventDelayMs: CHUNK_DELAY_MS });
  },
});
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
