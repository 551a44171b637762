// Every type a public signature mentions is exported from the package's entry, so a caller can
// name what it passes and receives. Walks the entry's exports with the TypeScript checker.
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = path.join(ROOT, 'src/index.ts');
const SRC = path.join(ROOT, 'src') + path.sep;

/** Names of the project's own types that the entry's exports mention but do not export. */
function missingExports(): string[] {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([ENTRY], parsed.options);
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(ENTRY);
  if (!entry) throw new Error('no entry');
  const entrySymbol = checker.getSymbolAtLocation(entry);
  if (!entrySymbol) throw new Error('entry has no module symbol');
  const exported = new Set<ts.Symbol>();
  for (const sym of checker.getExportsOfModule(entrySymbol))
    exported.add(sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym);

  const missing = new Set<string>();
  const seen = new Set<ts.Node>();
  const visit = (node: ts.Node): void => {
    if (seen.has(node)) return;
    seen.add(node);
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const at = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
      let sym = checker.getSymbolAtLocation(at);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      const decl = sym?.declarations?.[0];
      if (
        sym &&
        decl &&
        decl.getSourceFile().fileName.startsWith(SRC) &&
        !ts.isTypeParameterDeclaration(decl)
      ) {
        if (!exported.has(sym)) missing.add(sym.name);
        else for (const d of sym.declarations ?? []) visit(d);
      }
    }
    // Private members and function bodies are not part of the public surface.
    if (ts.isBlock(node)) return;
    if (
      ts.canHaveModifiers(node) &&
      ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)
    )
      return;
    ts.forEachChild(node, visit);
  };
  for (const sym of exported) for (const decl of sym.declarations ?? []) visit(decl);
  return [...missing].sort();
}

describe('the public API', () => {
  it('exports every type its signatures use', () => {
    expect(missingExports()).toEqual([]);
  }, 60_000);
});
