"""ragstat inside the tools people already run: metrics for inspect_ai, a pytest plugin.

Each module imports its host tool only when used; nothing in the library imports this
package (it sits above the library, like the command line)."""
