# Reference values for ragstat's bounded intervals (`logit`, `korn_graubard`)
# from R survey's svyciprop, methods "logit" and "beta".
#
#   python tests/reference/make_svyciprop_data.py   # the CSVs (doc, y)
#   Rscript tests/reference/reference_svyciprop.R   # writes r_svyciprop.json
#
# Debian packages: r-base-core r-cran-survey r-cran-jsonlite.
# micro: svydesign(ids = ~doc, data = query rows), svyciprop(~y)
# macro: svydesign(ids = ~1, data = one row per document, r = mean of y), svyciprop(~r)
# each with and without fpc (M = 4 K documents), df = degf(design) (K - 1).

suppressPackageStartupMessages({
  library(survey)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = FALSE)
file_arg <- sub("^--file=", "", args[grep("^--file=", args)])
here <- if (length(file_arg)) dirname(normalizePath(file_arg)) else "tests/reference"
data_dir <- file.path(here, "data_svyciprop")

designs <- function(rows, M) {
  docs <- aggregate(y ~ doc, data = rows, FUN = mean)
  names(docs)[2] <- "r"
  if (is.na(M)) {
    list(
      micro = svydesign(ids = ~doc, data = rows),
      macro = svydesign(ids = ~1, data = docs)
    )
  } else {
    rows$M <- M
    docs$M <- M
    list(
      micro = svydesign(ids = ~doc, data = rows, fpc = ~M),
      macro = svydesign(ids = ~1, data = docs, fpc = ~M)
    )
  }
}

one_case <- function(design, estimand, method, level) {
  f <- if (estimand == "micro") ~y else ~r
  ci <- svyciprop(f, design, method = method, level = level, df = degf(design))
  lim <- as.numeric(attr(ci, "ci"))
  list(
    estimate = as.numeric(ci),
    se = sqrt(as.numeric(attr(ci, "var"))),
    lower = lim[1],
    upper = lim[2],
    df = degf(design),
    n = nrow(design)
  )
}

cases <- list()
for (path in sort(list.files(data_dir, pattern = "\\.csv$", full.names = TRUE))) {
  rows <- read.csv(path, colClasses = c(doc = "character", y = "numeric"))
  K <- length(unique(rows$doc))
  for (M in c(NA, 4 * K)) {
    d <- suppressWarnings(designs(rows, M))
    for (estimand in c("micro", "macro")) {
      for (method in c("logit", "beta")) {
        for (level in c(0.95, 0.90)) {
          res <- suppressWarnings(one_case(d[[estimand]], estimand, method, level))
          cases[[length(cases) + 1]] <- c(
            list(
              dataset = sub("\\.csv$", "", basename(path)),
              K = K,
              M = if (is.na(M)) NULL else M,
              estimand = estimand,
              method = method,
              level = level
            ),
            res
          )
        }
      }
    }
  }
}

out <- list(
  versions = list(
    R = paste(R.version$major, R.version$minor, sep = "."),
    survey = as.character(packageVersion("survey")),
    jsonlite = as.character(packageVersion("jsonlite"))
  ),
  cases = cases
)
writeLines(
  toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"),
  file.path(here, "r_svyciprop.json")
)
