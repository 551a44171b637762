// The permission modes of DESIGN.md as plain data. The zod schema (PermissionMode, in task.ts) is
// built from this list; the policy function checks modes against it directly, so the host's I/O
// threads, which run the policy function, load no zod.

/** Every permission mode, in the order the docs list them. */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;

/** True for one of the permission modes. */
export function isPermissionMode(value: unknown): value is (typeof PERMISSION_MODES)[number] {
  return (PERMISSION_MODES as readonly unknown[]).includes(value);
}
