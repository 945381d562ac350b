/** Who may manage the organization (src/docs/notes/access.md#roles): owners; members read everything and act on its work. */
import type { Role } from "../domain.ts";
import { ApiError } from "../errors.ts";

export const isOwner = (who: { role?: Role } | null | undefined): boolean => who?.role === "owner";

/**
 * The refusal of an owner-only operation to a member, on every door (REST, MCP, web, CLI). It
 * says the role decides, not the plan or the key's scopes, so nobody upgrades a plan in vain.
 */
export function ownerDenial(who: { role?: Role }): ApiError | null {
  if (isOwner(who)) return null;
  return new ApiError(
    403,
    "forbidden",
    "Only an owner of the organization can do this (role owner); your role is member. No plan or key scope changes that: ask an owner.",
  );
}
