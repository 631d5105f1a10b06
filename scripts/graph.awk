# graph.awk: the graph functions structure-check.sh and call-check.sh share, prepended to each
# one's awk program: sort_words (a line of words in order) and Tarjan's strongly connected
# components (scc). Not a program of its own.
function sort_words(s,    a, n, i, j, t, out) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    out = ""
    for (i = 1; i <= n; i++) out = out (i > 1 ? " " : "") a[i]
    return out
}
# Tarjan: comp[v] numbers the strongly connected components in the order they complete, so an
# edge between two components always goes to the lower number (the condensation, sinks first).
function scc(n, adj, comp,    v) {
    split("", sc_index); split("", sc_low); split("", sc_on); sc_i = 0; sc_sp = 0; sc_n = 0
    for (v = 1; v <= n; v++) if (!(v in sc_index)) scc_visit(v, adj, comp)
    return sc_n
}
function scc_visit(v, adj, comp,    e, k, m, w) {
    sc_index[v] = sc_low[v] = ++sc_i; sc_stack[++sc_sp] = v; sc_on[v] = 1
    m = split(adj[v], e, " ")
    for (k = 1; k <= m; k++) {
        w = e[k] + 0
        if (!(w in sc_index)) { scc_visit(w, adj, comp); if (sc_low[w] < sc_low[v]) sc_low[v] = sc_low[w] }
        else if (sc_on[w] && sc_index[w] < sc_low[v]) sc_low[v] = sc_index[w]
    }
    if (sc_low[v] == sc_index[v]) {
        sc_n++
        do { w = sc_stack[sc_sp--]; sc_on[w] = 0; comp[w] = sc_n } while (w != v)
    }
}
