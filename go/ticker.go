package idmint

import (
	"sync"
	"sync/atomic"
	"time"
)

// ticker is the clock check of the blocks NextID and NewObjectID hand out: a goroutine bumps
// millis about every millisecond and seconds when the system clock's second changes. A block
// remembers the counts read before it was taken and is dropped once they moved on, so an ID is
// never handed out more than about a millisecond (a second, for ObjectIds) after the core made
// it, give or take how late the goroutine wakes. Reading an atomic costs ~1 ns where
// time.Now() costs 40-100 ns, more than the rest of the call (docs/bench/go.md).
//
// The goroutine goes idle after a second in which no block was taken (bumping both counts
// once more, which drops every block taken before) and is woken by the next block taken.
var ticker struct {
	millis  atomic.Int64
	seconds atomic.Int64
	used    atomic.Bool
	idle    atomic.Bool
	wake    chan struct{}
	start   sync.Once
}

// tickerUsed is called after a block was taken (its counts read before it): it keeps the
// goroutine ticking, starting or waking it.
func tickerUsed() {
	ticker.start.Do(func() {
		ticker.wake = make(chan struct{}, 1)
		go tick()
	})
	if !ticker.used.Load() {
		ticker.used.Store(true)
	}
	if ticker.idle.Load() && ticker.idle.CompareAndSwap(true, false) {
		select {
		case ticker.wake <- struct{}{}:
		default:
		}
	}
}

func tick() {
	second := time.Now().Unix()
	quiet := 0
	for {
		time.Sleep(time.Millisecond)
		ticker.millis.Add(1)
		if now := time.Now().Unix(); now != second {
			second = now
			ticker.seconds.Add(1)
		}
		if ticker.used.Swap(false) {
			quiet = 0
			continue
		}
		if quiet++; quiet >= 1000 {
			// Idle first, then the bump: a block whose counts were read after the bump sees
			// idle and wakes the goroutine, which bumps again a millisecond later.
			ticker.idle.Store(true)
			ticker.millis.Add(1)
			ticker.seconds.Add(1)
			<-ticker.wake
			quiet = 0
			second = time.Now().Unix()
		}
	}
}
