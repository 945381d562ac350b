/** Who may manage the organization (SPEC §12): owners; members read everything and act on its work. */
import type { Role } from "../domain.ts";

export const isOwner = (who: { role?: Role } | null | undefined): boolean => who?.role === "owner";
