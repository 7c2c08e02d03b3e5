package readers

import "time"

// utcTimestamp reads the form nearly every recorder writes,
// "2006-01-02T15:04:05[.999999999]Z", as time.Time's UnmarshalText does
// (the same instant, in UTC, with the fraction's first nine digits); ok is
// false for every other form, which is left to UnmarshalText. It does not
// go through time.Date and the general parser: on a busy capture the
// envelope's time took a twentieth of the reader's work.
func utcTimestamp(b []byte) (t time.Time, ok bool) {
	if len(b) < len("2006-01-02T15:04:05Z") || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	century, ok1 := twoDigits(b[0], b[1])
	yy, ok2 := twoDigits(b[2], b[3])
	month, ok3 := twoDigits(b[5], b[6])
	day, ok4 := twoDigits(b[8], b[9])
	hour, ok5 := twoDigits(b[11], b[12])
	minute, ok6 := twoDigits(b[14], b[15])
	sec, ok7 := twoDigits(b[17], b[18])
	year := century*100 + yy
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if len(frac) < 2 || frac[0] != '.' {
			return time.Time{}, false
		}
		n := 0
		for _, c := range frac[1:] {
			if c-'0' > 9 {
				return time.Time{}, false
			}
			if n < 9 { // digits past the ninth are read and dropped
				nsec, n = nsec*10+int(c-'0'), n+1
			}
		}
		nsec *= pow10[9-n]
	}
	unix := (daysFromCivil(year, month, day)*24+int64(hour))*3600 + int64(minute)*60 + int64(sec)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

var pow10 = [10]int{1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000}

// twoDigits reads the decimal digits a and b.
func twoDigits(a, b byte) (n int, ok bool) {
	a, b = a-'0', b-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to the given date of
// the proleptic Gregorian calendar, as time.Date counts them: years are
// counted from March, so that a leap day ends its year.
func daysFromCivil(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	era := year / 400 // year >= -1 here: 0 for years 0-399, and for -1
	if year < 0 {
		era = -1
	}
	yoe := year - era*400                          // [0, 399]
	mp := (month + 9) % 12                         // March is 0
	doy := (153*mp+2)/5 + day - 1                  // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy         // [0, 146096]
	return int64(era)*146097 + int64(doe) - 719468 // 719468: days from 0000-03-01 to 1970-01-01
}
