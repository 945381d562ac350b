/**
 * The life of a signed-in form: session and CSRF check, the operation, then a 303 back to a page
 * (post/redirect/get) — or, when the operation refuses the input (400), the same page again with
 * each field's error and the values typed, status 400.
 */
import type { Context } from "hono";
import type { ValidSession } from "../auth/sessions.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { seeOther } from "../html/layout.ts";
import { readSignedInForm, safeNextPath } from "../html/page-frame.ts";
import { ownersOnly } from "./owner.ts";
import { formErrors } from "./run-operation.ts";

export interface FormState {
  /** Field name → message; "(body)" for the form as a whole. */
  errors: Record<string, string>;
  values: Record<string, string>;
  /** The form as sent (csrf left out), for fields with several values (checkboxes). */
  sent: URLSearchParams;
}

export type PageRenderer = (
  deps: AppDeps,
  c: Context<AppEnv>,
  found: ValidSession,
  state: FormState | null,
  status?: number,
) => Promise<Response>;

/**
 * `act` returns where to go on success. A form may carry `back` (a path of this server, e.g. the
 * filtered list it was sent from): `backTo(form, fallback)` reads it safely.
 */
export async function handleForm(
  deps: AppDeps,
  c: Context<AppEnv>,
  render: PageRenderer,
  act: (found: ValidSession, form: URLSearchParams) => Promise<string | Response>,
): Promise<Response> {
  const signed = await readSignedInForm(deps, c);
  if (signed instanceof Response) return signed;
  try {
    const next = await act(signed.found, signed.form);
    return typeof next === "string" ? seeOther(c, next) : next;
  } catch (error) {
    // The owner rule is the operation's (`role: "owner"`, checked by invoke): a member refused it gets the owners' page.
    if (isRoleRefusal(error)) return ownersOnly(c, signed.found);
    const errors = formErrors(error);
    if (!errors) throw error;
    const sent = new URLSearchParams([...signed.form].filter(([name]) => name !== "csrf"));
    return render(deps, c, signed.found, { errors, values: Object.fromEntries(sent), sent }, 400);
  }
}

const isRoleRefusal = (error: unknown) => error instanceof ApiError && error.status === 403 && error.code === "forbidden";

export const backTo = (form: URLSearchParams, fallback: string) => safeNextPath(form.get("back"), fallback);

/** Appends `done=code` to a path (the page shows the matching notice), and any `extra` parameters (an Undo's). */
export function withDone(path: string, code: string, extra: Record<string, string> = {}): string {
  const url = new URL(path, "http://crew.invalid");
  url.searchParams.set("done", code);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url.pathname + url.search;
}
