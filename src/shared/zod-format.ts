// Turns zod issues into one readable line per problem, naming the file and the field.
import type * as z from 'zod';

/** Formats a zod error as `where: field: message` lines (where = file path or a label). */
export function formatZodError(error: z.ZodError, where?: string): string[] {
  return error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${where ? `${where}: ` : ''}${field}: ${issue.message}`;
  });
}
