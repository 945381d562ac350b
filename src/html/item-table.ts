/**
 * The table both credential pages show (API keys, connected apps): one row per item — its name
 * and id, a few columns, when it was created and last used — and a revoke step that asks first (a
 * <details> disclosure, so it works without JavaScript). On narrow screens each row becomes a
 * card whose cells name their column (`data-label`).
 */
import { html } from "hono/html";
import { ago, csrfField, type Html, type PageAccount } from "./layout.ts";

export interface RevokeStep {
  /** Where the confirmation form posts. */
  action: string;
  /** The hidden field that names the item: [name, value]. */
  field: [string, string];
  /** The question the confirmation asks, e.g. "Revoke “x”? Anything using it stops working at once." */
  question: string;
  /** The confirming button's visible text, e.g. "Revoke key"; screen readers hear the item's name too. */
  verb: string;
  /** The disclosure's text; default "Revoke…". */
  label?: string;
}

export interface ItemRow {
  /** The name the person knows the item by (free text: a long one wraps). */
  name: string;
  /** A short identifier shown small after the name. */
  id: Html;
  /** One value per middle column, in order; `mono` for hosts and ids. */
  cells: { value: string | Html; mono?: boolean }[];
  createdAt: string;
  lastUsedAt: string | null;
  revoke: RevokeStep;
}

export interface ItemTable {
  caption: string;
  /** Headers: the name column, the middle columns, the creation column ("Created", "Connected"). */
  nameLabel: string;
  columns: string[];
  createdLabel: string;
  rows: ItemRow[];
}

/** "Revoke…" that opens the confirmation. The item's name is in the accessible names only, so a long name makes no wide button. */
function revokeStep(account: PageAccount, name: string, step: RevokeStep): Html {
  const quoted = html`<span class="sr-only"> “${name}”</span>`;
  return html`<details class="confirm">
          <summary class="btn btn-danger-quiet">${step.label ?? "Revoke…"}${quoted}</summary>
          <form method="post" action="${step.action}" class="confirm-box">
            ${csrfField(account)}
            <input type="hidden" name="${step.field[0]}" value="${step.field[1]}">
            <p>${step.question}</p>
            <button type="submit" class="btn btn-danger">${step.verb}${quoted}</button>
          </form>
        </details>`;
}

export function itemTable(account: PageAccount, now: number, table: ItemTable): Html {
  const headers = [table.nameLabel, ...table.columns, table.createdLabel, "Last used"];
  const rows = table.rows.map(
    (row) => html`<tr>
      <th scope="row" data-label="${table.nameLabel}">${row.name} ${row.id}</th>
      ${row.cells.map((cell, i) => html`<td data-label="${table.columns[i]}"${cell.mono ? html` class="mono"` : ""}>${cell.value}</td>`)}
      <td data-label="${table.createdLabel}" class="nowrap">${ago(row.createdAt, now)}</td>
      <td data-label="Last used" class="nowrap">${ago(row.lastUsedAt, now)}</td>
      <td data-label="${(row.revoke.label ?? "Revoke…").replace(/…$/, "")}">${revokeStep(account, row.name, row.revoke)}</td>
    </tr>`,
  );
  return html`<div class="table-wrap"><table class="table stack items">
    <caption class="sr-only">${table.caption}</caption>
    <thead><tr>${headers.map((label) => html`<th scope="col">${label}</th>`)}<th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}
