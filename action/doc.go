// Package action holds the tests of the GitHub Action's step script,
// mcpcheck-action.sh, which action.yml at the repository root runs.
package action
