#!/usr/bin/env perl
# perl-greedy: a Spite Arena bot with no gRPC library at all. It speaks the stdio
# transport: one JSON message per line (protobuf's canonical JSON mapping of the
# spite.v1 messages) on stdin/stdout; stderr is its log. Only core Perl modules.
#
# Policy: the same greedy rule as sdk/python/spite_sdk/policies.py greedy_move:
# stock first, then natural hand cards, then natural discard tops; else discard the
# highest non-wild card onto an empty discard pile or the pile whose top is closest
# above it; with no discard, play rather than pass.
use strict;
use warnings;
use JSON::PP;

$| = 1;
my $json = JSON::PP->new->canonical;
my %wild;

sub send_message { print $json->encode($_[0]), "\n"; }
sub field { my ($h, $k) = @_; return defined $h->{$k} ? $h->{$k} : 0; }   # proto3 JSON omits zeros

sub choose {
    my ($obs) = @_;
    my @moves = @{ $obs->{legalMoves} || [] };
    my ($first_play, $hand_play, $pile_play);
    my @discards;
    for my $i (0 .. $#moves) {
        my $m = $moves[$i];
        my $kind = $m->{kind} // '';
        my $source = $m->{source} // '';
        my $card = field($m, 'card');
        if ($kind eq 'MOVE_KIND_PLAY') {
            return $i if $source eq 'SOURCE_STOCK';
            $first_play //= $i;
            next if $wild{$card};
            $hand_play //= $i if $source eq 'SOURCE_HAND';
            $pile_play //= $i if $source eq 'SOURCE_DISCARD_PILE';
        } elsif ($kind eq 'MOVE_KIND_DISCARD') {
            push @discards, $i;
        }
    }
    return $hand_play if defined $hand_play;
    return $pile_play if defined $pile_play;
    if (@discards) {
        my @naturals = grep { !$wild{ field($moves[$_], 'card') } } @discards;
        my @pool = @naturals ? @naturals : @discards;
        my $best = -1;
        for my $i (@pool) { my $c = field($moves[$i], 'card'); $best = $c if $c > $best; }
        my $seat = field($obs, 'seat');
        my $piles = $obs->{discardPiles}[$seat]{piles} || [];
        my ($choice, @key);
        for my $i (grep { field($moves[$_], 'card') == $best } @discards) {
            my $target = field($moves[$i], 'target');
            my @cards = @{ ($piles->[$target] || {})->{cards} || [] };
            my @k;
            if (!@cards) { @k = (0, $target); }
            else {
                my $gap = $cards[-1] - $best;
                @k = ($gap >= 0 ? 1 : 2, abs($gap) * 10 + $target);
            }
            if (!defined $choice || $k[0] < $key[0] || ($k[0] == $key[0] && $k[1] < $key[1])) {
                ($choice, @key) = ($i, @k);
            }
        }
        return $choice;
    }
    return defined $first_play ? $first_play : 0;
}

send_message({ hello => { token => $ENV{SPITE_TOKEN} // '', name => 'perl-greedy', version => '1.0.0',
                          protocolVersion => 1 } });
while (my $line = <STDIN>) {
    my $message = eval { $json->decode($line) };
    if (!$message) { print STDERR "perl-greedy: unreadable line from the referee\n"; next; }
    if (my $welcome = $message->{welcome}) {
        %wild = map { $_ => 1 } @{ $welcome->{rules}{wildRanks} || [] };
    } elsif (my $decision = $message->{decision}) {
        my $index = choose($decision->{observation});
        send_message({ action => { decisionId => $decision->{decisionId}, moveIndex => $index } });
    } elsif (my $result = $message->{result}) {
        print STDERR "perl-greedy: referee says: $result->{error}\n" if $result->{error};
    } elsif (my $refusal = $message->{refusal}) {
        print STDERR "perl-greedy: refused: $refusal->{code}: $refusal->{message}\n";
        exit 1;
    } elsif ($message->{matchOver}) {
        exit 0;
    }
}
exit 0;
