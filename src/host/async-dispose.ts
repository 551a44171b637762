// `Symbol.asyncDispose`, which `await using` looks up. Node 20 defines it from 20.4 on; before
// that it is defined here as later Node versions define it (`Symbol.for('nodejs.asyncDispose')`),
// so a runtime disposes itself on every supported Node version.
const SymbolWithDispose = Symbol as unknown as { asyncDispose?: symbol };
if (SymbolWithDispose.asyncDispose === undefined)
  Object.defineProperty(Symbol, 'asyncDispose', { value: Symbol.for('nodejs.asyncDispose') });

/** The symbol a runtime's dispose method is keyed by. */
export const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose;
