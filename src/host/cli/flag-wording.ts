// The library's errors name its options (`options.cwd: ...`); the CLI's user typed flags. This maps
// one to the other where the CLI prints an error, so each reader sees the name they wrote.

const FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  cwd: '--cwd',
  agents: '--agents',
  record: '--record',
  replay: '--replay',
  model: '--model',
};

/** `text` with every `options.<name>` the CLI sets from a flag written as that flag. */
export function flagWording(text: string): string {
  return text.replace(/\boptions\.([a-z]+)\b/g, (whole, name: string) => FLAG_OF_OPTION[name] ?? whole);
}
