// The book's search ranking (Sphinx's html_search_scorer; Sphinx copies this object into
// language_data.js). Sphinx ranks an API object whose name matches the query above pages whose
// text matches it, so a search for "pdc grade" listed dozens of pdc.grade.* entries before the
// instructor guide. Here a page whose title holds every word of the query comes first, guides
// and chapters before the API reference, which follows in Sphinx's own order.
var Scorer = {
  score: (result) => {
    const [docname, title, _anchor, _descr, score, _filename] = result;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = query.toLowerCase().split(/\s+/).filter((w) => w.length > 2);
    let adjusted = score;
    if (docname === "api" || docname.startsWith("api/")) adjusted -= 20;
    if (words.length && title && words.every((w) => title.toLowerCase().includes(w))) {
      adjusted += 10;
    }
    return adjusted;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
