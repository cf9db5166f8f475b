# Reference values of clubSandwich's CR3 (leave-one-cluster-out) variance for tests/test_cr3.py.
#
#   Rscript tests/reference/reference_cr3.R
#
# Reads every CSV (columns doc,y) in tests/reference/data_small_k/ and tests/reference/data/
# and writes tests/reference/r_cr3.json (every double as a %.17g literal; no JSON package).
# Per dataset and estimand, for the intercept of lm(y ~ 1) clustered by doc:
#   micro  the per-query scores, clusters = documents
#   macro  one row per document (its rate), clusters = documents
# it records vcovCR(type = "CR3") and vcovCR(type = "CR2") standard errors and the
# Satterthwaite df of coef_test(vcov = "CR3") and coef_test(vcov = "CR2") (the latter is
# Bell-McCaffrey's).

suppressPackageStartupMessages(library(clubSandwich))

script_path <- function() {
  arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(arg) == 0) stop("run with Rscript tests/reference/reference_cr3.R")
  normalizePath(sub("^--file=", "", arg[1]))
}

here <- dirname(script_path())
num <- function(x) sprintf("%.17g", x)

one <- function(y, doc) {
  fit <- lm(y ~ 1)
  cr3 <- coef_test(fit, vcov = "CR3", cluster = doc, test = "Satterthwaite")
  cr2 <- coef_test(fit, vcov = "CR2", cluster = doc, test = "Satterthwaite")
  v3 <- vcovCR(fit, cluster = doc, type = "CR3")
  sprintf(
    '{"estimate": %s, "se_cr3": %s, "df_cr3": %s, "se_cr2": %s, "df_cr2": %s, "coef_test_se_cr3": %s}',
    num(coef(fit)[[1]]), num(sqrt(v3[1, 1])), num(cr3$df_Satt[1]), num(cr2$SE[1]),
    num(cr2$df_Satt[1]), num(cr3$SE[1])
  )
}

entries <- c()
for (dir in c("data_small_k", "data")) {
  for (path in sort(list.files(file.path(here, dir), pattern = "\\.csv$", full.names = TRUE))) {
    d <- read.csv(path, colClasses = c("character", "numeric"))
    name <- paste0(dir, "/", sub("\\.csv$", "", basename(path)))
    rates <- tapply(d$y, d$doc, mean)
    micro <- one(d$y, d$doc)
    macro <- one(as.numeric(rates), names(rates))
    entries <- c(entries, sprintf('"%s": {"micro": %s, "macro": %s}', name, micro, macro))
  }
}
out <- paste0(
  '{"package": "clubSandwich ', as.character(packageVersion("clubSandwich")), '",\n',
  paste(entries, collapse = ",\n"), "\n}\n"
)
writeLines(out, file.path(here, "r_cr3.json"), sep = "")
