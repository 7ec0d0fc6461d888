/*
 * deck.h - the transaction mix dealt from a shuffled deck of cards (TPC-C
 * clause 5.2.4.2), one deck per terminal.
 *
 * A deck holds a fixed number of cards of each transaction type; it is
 * shuffled with the terminal's own random stream, dealt card by card, and
 * shuffled again when used up.  Over every whole deck the shares are exactly
 * the deck's composition, so the mix minimums of clause 5.2.3 hold by
 * construction, up to the partial decks at the ends of a measured window.
 * A weighted random draw per transaction would only meet them on average.
 *
 * Pure: no I/O, no allocation, no threads; the terminal owns its deck.
 */
#ifndef TPCC_DECK_H
#define TPCC_DECK_H

#include "core/config.h"
#include "tpcc/random.h"

#define DECK_MAX 100 /* cards: a mix in percent reduces to at most 100 */

struct deck {
    unsigned char card[DECK_MAX]; /* enum tx_type per card, in dealing order */
    int n;                        /* cards in the deck */
    int next;                     /* next card to deal; n: shuffle before dealing */
    int count[TX_NTYPES];         /* cards of each type */
};

/* The spec's deck (clause 5.2.4.2): 10 New-Order, 10 Payment, 1 Order-Status,
 * 1 Delivery, 1 Stock-Level, 23 cards. */
extern const int deck_spec_weights[TX_NTYPES];

/* Build d from weights per enum tx_type (cards, or percentages: reduced by
 * their greatest common divisor, so 45/43/4/4/4 is a 100-card deck and
 * 40/40/10/5/5 a 20-card one, 8/8/2/1/1).  Returns 0, or -1 when the weights are
 * negative, all zero, or still more than DECK_MAX cards after the reduction. */
int deck_init(struct deck *d, const int *weights);

/* Deal the next card (an enum tx_type), shuffling first (Fisher-Yates with r)
 * when the deck is used up. */
int deck_draw(struct deck *d, struct rng *r);

/* Share of type t in the deck, in percent. */
double deck_share_pct(const struct deck *d, int t);

#endif
