/**
 * Pieces the work pages share: priority badges, filter tabs and pagination as plain links
 * (shareable URLs), empty states that say what to do next, labelled form fields with their error.
 */
import { html } from "hono/html";
import { alertBox, type Html } from "./layout.ts";

export const priorityBadge = (priority: string) => html`<span class="badge badge-p-${priority}">${priority}</span>`;

/** A URL of this page with some query parameters changed (undefined/empty removes one). */
export function withQuery(path: string, current: Record<string, string | undefined>, changes: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...current, ...changes })) if (value) params.set(key, value);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** One row of filter links; the current one is marked. `label` names the row for screen readers. */
export function filterLinks(label: string, options: { href: string; text: string; current: boolean }[]): Html {
  return html`<nav class="filters" aria-label="${label}"><span class="filters-label" aria-hidden="true">${label}</span><ul>${options.map(
    (o) => html`<li><a href="${o.href}"${o.current ? html` aria-current="true"` : ""}>${o.text}</a></li>`,
  )}</ul></nav>`;
}

/** "Next page" (and "First page" when not on it) as links; nothing when there is one page. */
export function pager(firstHref: string, nextHref: string | null, onFirst: boolean): Html | string {
  if (!nextHref && onFirst) return "";
  return html`<nav class="pager" aria-label="Pages">${onFirst ? "" : html`<a class="btn btn-quiet" href="${firstHref}">First page</a>`}${
    nextHref ? html`<a class="btn" href="${nextHref}" rel="next">Next page</a>` : ""
  }</nav>`;
}

/** What an empty list means and what to do about it. */
export function emptyState(message: string, next?: Html | string): Html {
  return html`<div class="empty"><p>${message}</p>${next ? html`<p>${next}</p>` : ""}</div>`;
}

export interface FieldOptions {
  label: string;
  value?: string;
  error?: string;
  required?: boolean;
  minlength?: number;
  maxlength?: number;
  type?: string;
  autocomplete?: string;
  hint?: string;
}

const describedBy = (id: string, o: FieldOptions) =>
  o.error ? html` aria-invalid="true" aria-describedby="${id}-error"` : o.hint ? html` aria-describedby="${id}-hint"` : "";

const fieldFooter = (id: string, o: FieldOptions) =>
  html`${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ""}${o.error ? html`<p class="field-error" id="${id}-error">${o.error}</p>` : ""}`;

export function textField(id: string, name: string, o: FieldOptions): Html {
  return html`<div class="field"><label for="${id}">${o.label}</label><input id="${id}" name="${name}" type="${o.type ?? "text"}" value="${o.value ?? ""}"${
    o.required ? html` required` : ""
  }${o.minlength ? html` minlength="${o.minlength}"` : ""}${o.maxlength ? html` maxlength="${o.maxlength}"` : ""}${
    o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ""
  }${describedBy(id, o)}>${fieldFooter(id, o)}</div>`;
}

export function textArea(id: string, name: string, o: FieldOptions): Html {
  return html`<div class="field"><label for="${id}">${o.label}</label><textarea id="${id}" name="${name}" rows="3"${
    o.maxlength ? html` maxlength="${o.maxlength}"` : ""
  }${describedBy(id, o)}>${o.value ?? ""}</textarea>${fieldFooter(id, o)}</div>`;
}

export function selectField(id: string, name: string, choices: readonly (string | [string, string])[], o: FieldOptions): Html {
  const options = choices.map((choice) => {
    const [value, text] = typeof choice === "string" ? [choice, choice] : choice;
    return html`<option value="${value}"${value === (o.value ?? "") ? html` selected` : ""}>${text}</option>`;
  });
  return html`<div class="field"><label for="${id}">${o.label}</label><select id="${id}" name="${name}"${describedBy(id, o)}>${options}</select>${fieldFooter(
    id,
    o,
  )}</div>`;
}

/** A success notice chosen by a code in the URL (never free text from the URL). */
export function doneNotice(messages: Record<string, string>, code: string | undefined): string | null {
  return code && Object.hasOwn(messages, code) ? (messages[code] ?? null) : null;
}

/** A form's errors and typed values as the form-flow hands them back (src/web/form-flow.ts). */
export interface FormErrors {
  errors: Record<string, string>;
  values: Record<string, string>;
}

/**
 * A form's one error alert (each message said once): when every error sits beside a field the
 * form shows, the alert only says the form was not saved and to look below; an error with no field
 * of its own on the page (the form as a whole, a row's form, a field the page does not render) is
 * said in the alert instead, named by its field, with the operation's advice (the allowed range or
 * values) as its words.
 */
export function formAlert(
  state: FormErrors | null,
  shown: readonly string[],
  summary: string,
  labels: Record<string, string> = {},
): Html | string {
  if (!state) return "";
  const elsewhere = Object.entries(state.errors).filter(([field]) => !shown.includes(field));
  if (elsewhere.length === 0) return alertBox("error", summary);
  const name = (field: string) => labels[field] ?? field.charAt(0).toUpperCase() + field.slice(1);
  const said = elsewhere.map(([field, message]) => (field === "(body)" ? message : `${name(field)}: ${message}`));
  return alertBox("error", said.length === 1 ? said[0] : html`<ul>${said.map((line) => html`<li>${line}</li>`)}</ul>`);
}

/**
 * The state of one form of a page with several (an add form, rows' forms): null unless the form
 * sent carried `marker`, a field only that form has.
 */
export function formPart(state: FormErrors | null, marker: string): FormErrors | null {
  return state && Object.hasOwn(state.values, marker) ? state : null;
}

/** What a form field may hold, read from the operation's input schema (one rule, in the registry). */
export interface FieldRules {
  required: boolean;
  minlength?: number;
  maxlength?: number;
  /** A picklist's values, for a select's options. */
  options?: readonly string[];
}

interface SchemaNode {
  kind?: string;
  type: string;
  wrapped?: SchemaNode;
  entries?: Record<string, SchemaNode>;
  options?: readonly unknown[];
  requirement?: unknown;
  pipe?: readonly SchemaNode[];
}

const WRAPPERS = new Set(["optional", "exact_optional", "nullish", "nullable", "non_optional"]);

/** The rules of one schema: optional-ness from its wrappers, lengths from its pipe (nested pipes too), a picklist's options. */
export function rulesOf(schema: unknown, required = true): FieldRules {
  let node = schema as SchemaNode;
  while (WRAPPERS.has(node.type) && node.wrapped) {
    if (node.type !== "nullable" && node.type !== "non_optional") required = false;
    node = node.wrapped;
  }
  const rules: FieldRules = { required };
  const visit = (n: SchemaNode) => {
    if (n.type === "picklist" && n.options) rules.options = n.options.map(String);
    for (const item of n.pipe ?? []) {
      if (item === n) continue;
      if (item.kind === "schema") visit(item);
      else if (item.type === "max_length" && typeof item.requirement === "number") rules.maxlength = item.requirement;
      else if (item.type === "min_length" && typeof item.requirement === "number") rules.minlength = item.requirement;
    }
  };
  visit(node);
  return rules;
}

/** The rules of field `name` of an object schema (through pipes around the object, e.g. a cross-field check). */
export function fieldRules(input: unknown, name: string): FieldRules {
  let node = input as SchemaNode;
  while (!node.entries && node.pipe?.[0] && node.pipe[0] !== node) node = node.pipe[0];
  while (!node.entries && WRAPPERS.has(node.type) && node.wrapped) node = node.wrapped;
  const field = node.entries?.[name];
  if (!field) throw new Error(`The schema has no field ${name}.`);
  return rulesOf(field);
}

/**
 * A form's fields bound to its operation's schema and to the form as sent: each one gets its
 * typed value, its error and the schema's rules (required, lengths, choices) the one way. Ids are
 * `${prefix}-${name}`.
 */
export function boundFields(
  schema: unknown,
  state: { errors: Record<string, string>; values: Record<string, string> } | null,
  prefix: string,
) {
  const values = state?.values ?? {};
  const errors = state?.errors ?? {};
  const options = (name: string, label: string, extra: Partial<FieldOptions> = {}): FieldOptions => ({
    label,
    value: values[name],
    error: errors[name],
    ...extra,
    ...fieldRules(schema, name),
  });
  return {
    text: (name: string, label: string, extra?: Partial<FieldOptions>) => textField(`${prefix}-${name}`, name, options(name, label, extra)),
    area: (name: string, label: string, extra?: Partial<FieldOptions>) => textArea(`${prefix}-${name}`, name, options(name, label, extra)),
    /** A choice; `choices` defaults to the schema's picklist. */
    select: (name: string, label: string, fallback: string, choices?: readonly (string | [string, string])[]) =>
      selectField(`${prefix}-${name}`, name, choices ?? fieldRules(schema, name).options ?? [], {
        label,
        value: values[name] ?? fallback,
        error: errors[name],
      }),
  };
}
