/**
 * The paths of the MCP endpoint's narrower views (src/docs/notes/mcp-clients.md#read-only-and-toolsets):
 * `/mcp/readonly`, `/mcp/x/{toolset}`, `/mcp/x/{toolset}/readonly`. Each is a resource URL of its
 * own for OAuth (RFC 9728 §3.3: a client may require the metadata's `resource` to equal the URL it
 * connects to), and all of them name the one audience Crew is (RFC 8707). Which toolsets exist is
 * the MCP adapter's to say; an unknown one is refused there.
 */
const VIEW_PATH = /^\/mcp\/(readonly|x\/[a-z]+(\/readonly)?)$/;

export const isMcpViewPath = (path: string): boolean => VIEW_PATH.test(path);
