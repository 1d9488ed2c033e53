import { type Actor, type CallerScope, ROLES, type Role } from '../platform/ctx.ts';
import { DomainError } from '../platform/errors.ts';

// the roles are declared with the caller (platform/ctx.ts), below every room; access is where they are read
export { ROLES, type Role };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

/**
 * The permission names the spec uses, each with the weakest role that holds it (spec 4.2-4.5, 5).
 * There is no per-key allowlist: the role alone decides.
 */
export const PERMISSIONS = {
  'brands:read': 'view_only',
  'brands:create': 'manage',
  'brands:update': 'manage',
  'brands:delete': 'manage',
  'categories:read': 'view_only',
  'categories:create': 'manage',
  'categories:update': 'manage',
  'categories:delete': 'manage',
  'templates:read': 'view_only',
  'templates:create': 'manage',
  'templates:update': 'manage',
  'templates:delete': 'manage',
  'products:read': 'view_only',
  'products:read_drafts': 'editable',
  'products:create': 'editable',
  'products:update': 'editable',
  'products:publish': 'editable',
  'products:delete': 'editable',
  'products:download': 'usable',
  'products:share': 'usable',
  /** Activity records of the catalogue (spec 5: manage manages activity records). */
  'activity:read': 'manage',
  'activity:manage': 'manage',
  /** Library edits over GraphQL (docs/search.md): folders, file metadata, moves, deletes. */
  'library:edit': 'editable',
  /** Who may access which folders (search-assets currentUserId, docs/search.md). */
  'library:manage_access': 'manage',
  /** Defining custom metadata fields and custom field templates (docs/library.md "Custom metadata and custom fields"). */
  'library:manage_fields': 'manage',
} as const satisfies Record<string, Role>;
export type Permission = keyof typeof PERMISSIONS;

export function hasPermission(role: Role, permission: Permission): boolean {
  return roleAtLeast(role, PERMISSIONS[permission]);
}

/**
 * What a member may do at all, whoever carries the request: edit the library they own and create
 * in, and read what a frontend shows them. A member acting through a frontend is further bounded by
 * that frontend's key role; catalogue administration stays with keys.
 */
const MEMBER_PERMISSIONS: ReadonlySet<Permission> = new Set<Permission>(['brands:read', 'categories:read', 'templates:read', 'products:read', 'library:edit']);

/**
 * Whether a caller holds a permission (docs/access.md): a key by its current role; a member by
 * MEMBER_PERMISSIONS and, through a frontend, also by that key's role; the system, acting for its
 * team in a background job, holds every permission.
 */
export function actorMay(actor: Actor, permission: Permission): boolean {
  switch (actor.kind) {
    case 'key':
      return hasPermission(actor.role, permission);
    case 'member':
      return MEMBER_PERMISSIONS.has(permission) && (actor.viaKey === null || hasPermission(actor.viaKey.role, permission));
    case 'system':
      return true;
  }
}

/** Throws 403 forbidden unless the caller holds the permission. */
export function requirePermission(ctx: CallerScope, permission: Permission): void {
  if (!actorMay(ctx.actor, permission)) {
    throw new DomainError('forbidden', `Your role does not permit ${permission}`);
  }
}

/** Spec 5 for members: a frontend may name a member only with a key of editable role or higher. */
export const ROLE_TO_ACT_FOR_MEMBERS: Role = 'editable';
