package org.spitearena.sdk.policies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.spitearena.sdk.Move;
import org.spitearena.sdk.MoveKind;
import org.spitearena.sdk.Observation;
import org.spitearena.sdk.Pile;
import org.spitearena.sdk.RuleSet;
import org.spitearena.sdk.Wire;

class PoliciesTest {
    static final RuleSet STANDARD = Wire.rules(org.spitearena.v1.RuleSet.newBuilder().setName("standard")
            .setPlayers(2).setCentrePiles(4).setDiscardPiles(4).addWildRanks(0).addWildRanks(13).build());

    /** Seat 0's view with these discard piles ("9 | | 2,12 | 4": bottom to top) and legal moves (notation). */
    static Observation observation(String discards, String... legal) {
        List<Pile> piles = new ArrayList<>();
        for (String pile : (discards + " ").split("\\|", -1)) {
            List<Integer> cards = new ArrayList<>();
            for (String card : pile.strip().split(",")) {
                if (!card.isBlank()) {
                    cards.add(Integer.parseInt(card.strip()));
                }
            }
            piles.add(new Pile(cards));
        }
        while (piles.size() < 4) {
            piles.add(Pile.of());
        }
        List<Pile> empty = List.of(Pile.of(), Pile.of(), Pile.of(), Pile.of());
        return new Observation(STANDARD, 0, 1, 0, List.of(), List.of(), List.of(), List.of(piles, empty), List.of(),
                0, 0, List.of(), Arrays.stream(legal).map(Move::parse).toList());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "the stock first, even a wild one;             ;  H:5>C0 D0:6>C1 S:K>C2 S:K>C3 H:9>D0; S:K>C2",
        "a natural hand card before a wild;            ;  H:*>C0 H:K>C0 H:4>C1 D0:4>C1;        H:4>C1",
        "a natural discard-pile top before a wild hand card; ; H:K>C0 D2:Q>C3 H:9>D0;        D2:Q>C3",
        "no natural play: discard the highest non-wild; ; H:K>C0 H:3>D0 H:J>D0 H:K>D0 H:J>D1;  H:J>D0",
        "onto an empty pile, the lowest-numbered;      9 | | | 4;    H:7>D0 H:7>D1 H:7>D2 H:7>D3; H:7>D1",
        "else onto the pile whose top is closest above; 2,12 | 9 | 8 | 5; H:7>D0 H:7>D1 H:7>D2 H:7>D3; H:7>D2",
        "an equal top counts as above;                 12 | 7 | 9 | 3; H:7>D0 H:7>D1 H:7>D2 H:7>D3; H:7>D1",
        "else the closest below;                       2 | 5 | 3 | 6;  H:7>D0 H:7>D1 H:7>D2 H:7>D3; H:7>D3",
        "a tie goes to the lower pile;                 6 | 8 | 8 | 6;  H:7>D0 H:7>D1 H:7>D2 H:7>D3; H:7>D1",
        "wilds are discarded only when nothing else may go; 6 | | | ; H:K>D0 H:*>D0 H:K>D1;     H:K>D1",
        "no discard: a wild play rather than pass;     ;  H:*>C0 H:K>C1 pass;                  H:*>C0",
        "nothing else: pass;                           ;  pass;                                pass"})
    void greedy(String name, String discards, String legal, String want) {
        Observation observation = observation(discards == null ? "" : discards, legal.strip().split("\\s+"));
        assertEquals(want, Policies.greedy(observation).toString());
    }

    @Test
    void greedyWithNoLegalMovesPasses() {
        assertEquals(Move.PASS, Policies.greedy(observation("")));
    }

    @Test
    void randomAndNaive() {
        Observation observation = observation("", "H:5>C0", "D0:6>C1", "H:9>D0", "H:9>D1");
        Random rng = new Random(12);
        Set<Move> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            Move move = Policies.naive(observation, rng);
            assertEquals(MoveKind.PLAY, move.kind(), "naive discarded while a play was legal");
            seen.add(move);
            seen.add(Policies.random(observation, rng));
        }
        assertEquals(new HashSet<>(observation.legalMoves()), seen);
        assertEquals("H:9>D0", Policies.naive(observation("", "H:9>D0"), rng).toString());
        assertEquals(Move.PASS, Policies.random(observation(""), rng));
    }

    /**
     * Greedy against the Python {@code greedy_move} on positions from real games.
     * tests/languages/test_java.py writes the cases (one a line, tab-separated: the wire RuleSet
     * and Observation in base64, and the Python choice in notation) and names the file in
     * SPITE_GREEDY_CASES; without it there is nothing to compare, and the test is skipped.
     */
    @Test
    void greedyMatchesPython() throws Exception {
        String path = System.getenv("SPITE_GREEDY_CASES");
        assumeTrue(path != null && !path.isEmpty(), "SPITE_GREEDY_CASES is not set (tests/languages/test_java.py sets it)");
        Map<String, RuleSet> rules = new HashMap<>();
        Base64.Decoder base64 = Base64.getDecoder();
        int count = 0;
        List<String> mismatches = new ArrayList<>();
        try (BufferedReader lines = Files.newBufferedReader(Path.of(path))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                String[] fields = line.split("\t");
                assertEquals(3, fields.length, "a case is rules, observation, choice: " + line);
                RuleSet ruleSet = rules.computeIfAbsent(fields[0], text -> {
                    try {
                        return Wire.rules(org.spitearena.v1.RuleSet.parseFrom(base64.decode(text)));
                    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                        throw new IllegalArgumentException(e);
                    }
                });
                Observation observation = Wire.observation(
                        org.spitearena.v1.Observation.parseFrom(base64.decode(fields[1])), ruleSet);
                count++;
                String got = Policies.greedy(observation).toString();
                if (!got.equals(fields[2])) {
                    mismatches.add(ruleSet.name() + ": greedy = " + got + ", Python greedy_move = " + fields[2]
                            + "; legal moves " + observation.legalMoves());
                }
            }
        }
        assertTrue(count > 0, "no cases in " + path);
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + count + " choices differ, e.g.\n"
                + String.join("\n", mismatches.subList(0, Math.min(5, mismatches.size()))));
        System.out.println("greedy parity: " + count + " positions, " + rules.size() + " rule sets: same choices");
    }
}
