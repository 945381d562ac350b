/**
 * POST /settings/theme: the person's colour theme (System, Light, Dark), from the Settings menu's
 * form. A presentation choice of this browser, not a record of the organization: it is kept in a
 * cookie the pages read (src/docs/notes/web-app.md#plain-words-and-dark-mode), so no operation
 * stores it; the form is CSRF-checked like every signed-in form.
 */
import { Hono } from "hono";
import { setCookie } from "hono/cookie";
import type { AppDeps, AppEnv } from "../deps.ts";
import { seeOther, THEME_COOKIE, THEMES } from "../html/layout.ts";
import { readSignedInForm } from "../html/page-frame.ts";
import { backTo } from "./form-flow.ts";

const YEAR_SECONDS = 365 * 24 * 60 * 60;

export function themeRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.post("/settings/theme", async (c) => {
    const signed = await readSignedInForm(deps, c);
    if (signed instanceof Response) return signed;
    const chosen = signed.form.get("theme") ?? "";
    const theme = (THEMES as readonly string[]).includes(chosen) ? chosen : "system";
    setCookie(c, THEME_COOKIE, theme, {
      path: "/",
      sameSite: "Lax",
      httpOnly: true,
      secure: deps.config.baseUrl.startsWith("https:"),
      maxAge: YEAR_SECONDS,
    });
    return seeOther(c, backTo(signed.form, "/dashboard"));
  });
  return router;
}
