"""One module a family of games; the rules of a family live in its module only."""
