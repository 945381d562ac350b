/** `npx crew mcp`: the MCP tools over stdio, acting as the user of CREW_API_KEY. (Issue 4 fills this in.) */
export async function runStdioServer(_env: Record<string, string | undefined>): Promise<void> {
  throw new Error("The stdio MCP server is not implemented yet.");
}
