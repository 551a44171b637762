// The words the offline model reads past, and the words code uses for a concept: "config" in a
// question is `options`, `settings` or `rc` in code, "env" is `process.env`, and so on. Plain
// English only: identifiers in a question are never stemmed or expanded.

/** Question phrasing, filler and words too common in code to point anywhere. */
export const STOP_WORDS = new Set(
  `a about above across after again against all along also an and another any anything are around as at away back be because
  been before being below between both but by can cannot could did do does doing done down during each either else etc even
  ever every exactly few for from further get gets getting give given go goes going got had has have having he her here hers
  him his how however i if in inside instead into is it its itself just let lets like made make makes making many me might more
  most much must my near need needs no nor not now of off often on once one only onto or other others otherwise our ours out
  over own per please put same see seen she should show shown so some something somewhere such than that the their them then
  there these they thing things this those through thus to too two under until up upon us use used uses using very via want
  wants was way ways we well were what whats when whenever where wheres whereas whether which while who whom whose why will with
  within without would yes yet you your
  find finds found search look looks locate located show tell explain explained describe summarize summarise report answer question
  understand code codebase project repo repository source sources thing place places part parts work works working happen
  happens happening handled handle handles handling related relevant exist exists exact actually really quick quickly medium
  thorough thoroughly thoroughness explore exploration check checks checked know e.g i.e eg ie implemented implement
  implements implementation implementations defined define defines definition definitions declared declare declaration
  live lives living kept keep keeps stored store done decide decides decided figure figures figured whole logic responsible
  responsibility actual mechanism mechanisms piece pieces bit bits spot spots`.split(/\s+/),
);

/**
 * Words that a question uses for a concept, mapped to the stems code uses for it. The question's
 * own word stays the strongest term; these widen the net at a lower weight.
 */
const CONCEPT_TABLE: Record<string, readonly string[]> = {
  config: ['config', 'conf', 'option', 'setting', 'rc', 'default'],
  configur: ['config', 'conf', 'option', 'setting'],
  setting: ['setting', 'config', 'option'],
  option: ['option', 'opts', 'config', 'arg'],
  env: ['env', 'environ', 'dotenv'],
  environment: ['env', 'environ', 'dotenv'],
  variabl: ['env', 'var'],
  cli: ['cli', 'argv', 'arg', 'option', 'command', 'yargs', 'parse'],
  command: ['command', 'cmd', 'cli', 'argv'],
  flag: ['flag', 'option', 'arg', 'argv'],
  argument: ['arg', 'argv', 'param'],
  router: ['router', 'route', 'dispatch'],
  rout: ['route', 'router', 'dispatch', 'path'],
  middlewar: ['middleware', 'use', 'handle', 'next'],
  plugin: ['plugin', 'register', 'hook', 'load'],
  hook: ['hook', 'plugin', 'before', 'after'],
  error: ['error', 'err', 'throw', 'exception'],
  exception: ['exception', 'error', 'throw', 'uncaught'],
  header: ['header', 'setheader', 'getheader'],
  cooki: ['cookie', 'sign'],
  load: ['load', 'read', 'require', 'import', 'resolve', 'find'],
  read: ['read', 'load', 'get', 'parse'],
  pars: ['parse', 'parser', 'decode', 'read'],
  serial: ['serializ', 'stringif', 'encode', 'build'],
  start: ['start', 'listen', 'run', 'init', 'boot'],
  listen: ['listen', 'server', 'port'],
  server: ['server', 'listen', 'serve'],
  kill: ['kill', 'signal', 'terminat', 'exit'],
  stop: ['stop', 'kill', 'close', 'abort', 'cancel'],
  cancel: ['cancel', 'abort'],
  timeout: ['timeout', 'timer', 'settimeout'],
  retri: ['retry', 'retries', 'attempt'],
  retry: ['retry', 'retries', 'attempt'],
  log: ['log', 'logger', 'debug', 'warn'],
  warn: ['warn', 'deprecat', 'log'],
  cach: ['cache', 'memo'],
  watch: ['watch', 'poll'],
  test: ['test', 'spec', 'suite'],
  redirect: ['redirect', 'location'],
  proxi: ['proxy', 'proxies'],
  restart: ['restart', 'rerun', 'reload'],
  templat: ['template', 'view', 'render', 'engine'],
  view: ['view', 'render', 'template'],
  request: ['request', 'req'],
  respons: ['response', 'res'],
  connect: ['connect', 'open', 'socket'],
  connection: ['connect', 'open', 'socket'],
  open: ['open', 'connect'],
};

/** A Map, so that question words such as "constructor" never reach Object.prototype. */
export const CONCEPTS: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(CONCEPT_TABLE));

/**
 * A light English stemmer for question words (never for identifiers): plural, past and -ing
 * endings go, so "loaded", "loads" and "loading" all give `load`. The stem is matched as the start
 * of an identifier part, so `load` finds `loadConfig` and `configLoader`.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  const cut = (suffix: string, keep = 3) => w.endsWith(suffix) && w.length - suffix.length >= keep;
  if (cut('ations', 5)) w = w.slice(0, -6);
  else if (cut('ation', 5)) w = w.slice(0, -5);
  else if (cut('ies')) w = `${w.slice(0, -3)}i`;
  else if (cut('sses')) w = w.slice(0, -2);
  else if (/(?:ss|sh|ch|x|z)es$/.test(w) && w.length > 5) w = w.slice(0, -2);
  else if (cut('ing', 4)) w = undouble(w.slice(0, -3));
  else if (cut('ed')) w = undouble(w.slice(0, -2));
  else if (cut('ly')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is|os|as)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length >= 5) w = w.slice(0, -1);
  return w;
}

/** "stopp" → "stop", "logg" → "log": the doubled consonant of "stopped" and "logging" goes. */
function undouble(w: string): string {
  // "sett" stays: `set` alone would match far more than "setting" means.
  return w.length > 4 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}
