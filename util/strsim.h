/* strsim: string similarity for "did you mean" hints: the optimal-string-alignment (Damerau-Levenshtein with
 * adjacent transpositions) edit distance, and the nearest of a list of candidates. */
#ifndef STRSIM_H
#define STRSIM_H

/* strsim_distance: edits (insert, delete, substitute, swap two adjacent letters) turning a into b, ASCII
 * case-insensitive. Strings longer than 63 bytes are compared on their first 63. */
int strsim_distance(const char *a, const char *b);
/* strsim_suggest: the candidate (NULL-terminated list) that word most likely misspells, or NULL. A candidate
 * qualifies when its distance is <= 2 and smaller than word's length, or when one of the two is a prefix of the
 * other and the shorter has at least 3 letters; the smallest distance wins, ties go to the earlier candidate. */
const char *strsim_suggest(const char *word, const char *const *candidates);

#endif
