# Tidies the mdoc page that swift-argument-parser's generate-manual plugin writes from the help
# text: blank lines become paragraph breaks (.Pp), and indented example lines become literal
# blocks so they keep their layout. Used by `make man` and `make install`.
/^$/ {
    if (literal) { print ".Ed"; literal = 0 }
    print ".Pp"
    next
}
/^  / {
    if (!literal) { print ".Bd -literal -offset indent"; literal = 1 }
    sub(/^  /, "")
    print
    next
}
{
    if (literal) { print ".Ed"; literal = 0 }
    print
}
END { if (literal) print ".Ed" }
