/** An event crew_calendar_create adds to a connected calendar (src/docs/notes/connections.md), in epoch ms. */
export interface NewEvent {
  title: string;
  start: number;
  end: number;
  description?: string | undefined;
  attendees: string[];
}
